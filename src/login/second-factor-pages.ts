/**
 * The code page of the second factor (issue 14): the code field for the current factor (TOTP
 * from the authenticator app, or a code sent by SMS / email, with where it went, masked), "Send a
 * new code" for a sent code, one "use … instead" button per other factor of the user, and
 * "Use another account", and for a user with passkeys the passkey form — template
 * templates/otp.eta (auto-escaping). No script, except the passkey form's own (passkey.js).
 */
import type { OtpMethod } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import { displayLoginName } from './appearance.js';
import { errorText, renderLoginPage, type FormContext } from './pages.js';

const INTRO: Readonly<Record<OtpMethod, MessageKey>> = { totp: 'otpIntro', sms: 'otpSmsIntro', email: 'otpEmailIntro' };
const SWITCH: Readonly<Record<OtpMethod, MessageKey>> = { totp: 'otpUseTotp', sms: 'otpUseSms', email: 'otpUseEmail' };

export interface SecondFactorPage {
  readonly loginName: string;
  readonly method: OtpMethod;
  /** The user's other factors, offered as buttons. */
  readonly others: readonly OtpMethod[];
  /** Where a sent code went (masked). */
  readonly sentTo?: string;
  /** The user's passkeys, offered beside the code (the `_passkey-form` data, passkey.ts). */
  readonly passkey?: object;
  /** An error, or the notice `otpCodeSent`. */
  readonly error?: MessageKey;
  /** No code can go out for this SMS / email factor now (its number or address is not verified): said instead of "We sent a code". */
  readonly unavailable?: boolean;
}

export function renderSecondFactorPage(ctx: FormContext, options: SecondFactorPage): HttpReply {
  const sent = options.method !== 'totp' && options.unavailable !== true;
  const notice = options.error === 'otpCodeSent';
  const data = {
    displayName: displayLoginName(ctx.tr, options.loginName),
    intro: ctx.tr.t(options.unavailable === true ? 'otpDeliveryUnavailable' : INTRO[options.method]),
    sent,
    sentTo: sent ? options.sentTo : undefined,
    notice: notice ? ctx.tr.t('otpCodeSent') : undefined,
    errorText: notice ? undefined : errorText(ctx, options.error),
    others: options.others.map((method) => ({ method, label: ctx.tr.t(SWITCH[method]) })),
    passkey: options.passkey,
  };
  // The passkey form needs the login UI's own script (passkey.js); the page runs none otherwise.
  const script = options.passkey !== undefined;
  return renderLoginPage(ctx, 'otp', ctx.tr.t('title'), data, options.error === undefined || notice ? 200 : 400, { script });
}
