/**
 * OTP by email and by SMS set up during login (enrolment options, ./mfa-enrolment.ts): offered
 * when the user's email address (phone number) is verified and the instance can deliver there
 * (a mail provider or TESSERA_SMTP_*; an active SMS provider). The page sends a code to that
 * verified address / number through the same code machinery and durable outbox as the OTP
 * factor itself (src/query/otp-message.ts, recorded as the user's pending enrolment code), once
 * per pending code: a reload shows the page without sending again, "Send a new code" replaces
 * it. The right code adds the factor (the event of AddOTPEmail / AddOTPSMS, in the same append
 * as the check) and creates a session with the password and the code (amr pwd otp mfa). Wrong
 * codes count towards the `maxOtpAttempts` lockout like every OTP check.
 */
import { AppError, type OtpChannel } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import type { FormParams } from '../oidc/shared/form.js';
import { ONE_TIME_CODE_DIGITS } from '../query/one-time-code.js';
import { canSendOtp, checkOtpLoginCode, sendOtpLoginCode } from '../query/otp-message.js';
import { displayLoginName } from './appearance.js';
import { createSecondFactorSession, parseSessionCookie, toSessionCookie } from './browser-sessions.js';
import type { LoginContext } from './login-context.js';
import type { EnrollingUser, EnrolmentOption, EnrolmentPageFrame } from './mfa-enrolment.js';
import { errorText, renderLoginPage } from './pages.js';
import { maskEmail, maskPhone } from './second-factor.js';
import { advance } from './steps.js';

const MAX_CODE = 64;
const CODE = new RegExp(`^\\d{${ONE_TIME_CODE_DIGITS}}$`, 'u');

type Human = EnrollingUser['record']['state'];

/** The verified address / number codes of `channel` go to; undefined when there is none. */
function destinationOf(user: Human, channel: OtpChannel): string | undefined {
  const contact = channel === 'email' ? { to: user.email.address, verified: user.email.verified } : { to: user.phone.number, verified: user.phone.verified };
  return contact.to !== '' && contact.verified ? contact.to : undefined;
}

/** Whether a code of `channel` is pending for the user (the enrolment's, or the factor's once it is on). */
function codePending(ctx: LoginContext, user: Human, channel: OtpChannel): boolean {
  const now = ctx.deps.clock.now();
  const factor = channel === 'email' ? user.otpEmail : user.otpSms;
  const pending = factor !== undefined ? factor.code : user.otpEnrolment?.channel === channel ? user.otpEnrolment : undefined;
  return pending !== undefined && pending.expiresAt > now;
}

/** Sends a (new) code to set the factor up; the page's message when the channel cannot deliver now. */
async function sendCode(ctx: LoginContext, user: EnrollingUser, channel: OtpChannel): Promise<MessageKey | undefined> {
  try {
    const target = { instanceId: ctx.instanceId, orgId: user.record.state.orgId, userId: user.record.id, creator: user.record.id };
    await sendOtpLoginCode(ctx.deps.actors, ctx.deps.config, target, channel, true);
    return undefined;
  } catch (error) {
    // No provider any more, the address changed and is not verified, the user is not active.
    if (error instanceof AppError && error.kind === 'failed_precondition') return 'otpDeliveryUnavailable';
    throw error;
  }
}

function page(ctx: LoginContext, user: EnrollingUser, channel: OtpChannel, frame: EnrolmentPageFrame): HttpReply {
  const human = user.record.state;
  const to = destinationOf(human, channel);
  const notice = frame.error === 'otpCodeSent';
  const data = {
    factor: channel === 'email' ? 'otp_email' : 'otp_sms',
    displayName: displayLoginName(ctx.form.tr, ctx.stored.machine.context.loginName ?? ''),
    intro: ctx.form.tr.t(channel === 'email' ? 'otpEmailEnrolIntro' : 'otpSmsEnrolIntro'),
    sentTo: to === undefined ? undefined : channel === 'email' ? maskEmail(to) : maskPhone(to),
    notice: notice ? ctx.form.tr.t('otpCodeSent') : undefined,
    errorText: notice ? undefined : errorText(ctx.form, frame.error),
    others: frame.others,
  };
  return renderLoginPage(ctx.form, 'mfa-enrol-otp', ctx.form.tr.t('mfaEnrolTitle'), data, frame.error === undefined || notice ? 200 : 400);
}

function otpEnrolment(channel: OtpChannel): EnrolmentOption {
  return {
    factor: channel === 'email' ? 'otp_email' : 'otp_sms',
    label: channel === 'email' ? 'otpEmailEnrolName' : 'otpSmsEnrolName',
    available: async (ctx, user) => destinationOf(user.record.state, channel) !== undefined && canSendOtp(ctx.deps.actors, ctx.deps.config, ctx.instanceId, channel),
    // The first showing sends the code; a reload (a code still pending) does not send another.
    async render(ctx, user, frame) {
      if (codePending(ctx, user.record.state, channel)) return page(ctx, user, channel, frame);
      const refused = await sendCode(ctx, user, channel);
      return page(ctx, user, channel, refused === undefined ? frame : { ...frame, error: refused });
    },
    async submit(ctx: LoginContext, user: EnrollingUser, form: FormParams, frame: EnrolmentPageFrame): Promise<HttpReply> {
      const refuse = (error: MessageKey) => page(ctx, user, channel, { ...frame, error });
      const human = user.record.state;
      if (human.state === 'locked') return refuse('userLocked');
      if (human.passwordChangedAt > user.passwordCheckedAt) return refuse('loginFailed');
      if (form.get('resend') === '1') return refuse((await sendCode(ctx, user, channel)) ?? 'otpCodeSent');
      const code = (form.get('code') ?? '').trim().slice(0, MAX_CODE);
      // A malformed code is refused without counting (like on the code page).
      if (!CODE.test(code)) return refuse('otpMessageInvalid');
      const target = { instanceId: ctx.instanceId, orgId: human.orgId, userId: user.record.id, creator: user.record.id };
      const recorded = await checkOtpLoginCode(ctx.deps.actors, target, channel, code, true);
      if (ctx.req.notes !== undefined) ctx.req.notes.login = `otp:${recorded.outcome === 'valid' ? 'enrolled' : recorded.outcome}`;
      if (recorded.outcome === 'locked' || recorded.lockedNow) return refuse('userLocked');
      // The address / number is no longer verified: nothing was added.
      if (recorded.outcome === 'stale') return refuse('otpDeliveryUnavailable');
      if (recorded.outcome !== 'valid') return refuse(recorded.expired ? 'otpCodeExpired' : 'otpMessageInvalid');
      const login = await createSecondFactorSession(ctx.deps.actors, ctx.instanceId, user.record.id, { passwordCheckedAt: user.passwordCheckedAt }, { otpMessageChecked: channel }, ctx.req);
      if (!login.ok) return refuse(login.error);
      const cookie = toSessionCookie([login.held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
      return advance(ctx, { type: 'otp.verified', session: login.held.session }, { 'set-cookie': cookie });
    },
  };
}

export const otpEmailEnrolment = otpEnrolment('email');
export const otpSmsEnrolment = otpEnrolment('sms');
