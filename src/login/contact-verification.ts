/**
 * The login's email / phone verification step (issue 14), shown when the policy holds a login
 * for an unverified address (src/oidc/shared/contact-verification-gate.ts): the code from the mail / SMS,
 * "Send again", and another account. A wrong, used or expired code is refused on the page;
 * the right one marks the address verified and the login finishes (or holds again for the
 * phone). Both actions count against the password rate limits (routes.ts). No script; the page
 * is the template templates/verify-contact.eta.
 */
import { AppError, userKind, type ContactChannel, type ErrorCode } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { FormParams } from '../oidc/shared/form.js';
import { addressOf, sendContactVerificationCode, verifyContactVerificationCode } from '../query/contact-verification.js';
import type { MessageKey } from '../i18n/index.js';
import { pendingVerificationOf } from '../query/contact-verification-policy.js';
import type { LoginContext } from './login-context.js';
import { errorText, renderLoginPage, type FormContext } from './pages.js';
import { renderStep } from './render-step.js';
import { advance } from './steps.js';

const MAX_INPUT = 64;

const REFUSALS: Readonly<Partial<Record<ErrorCode, MessageKey>>> = {
  'user.email.code_invalid': 'resetCodeInvalid',
  'user.phone.code_invalid': 'resetCodeInvalid',
  'user.email.code_expired': 'resetCodeExpired',
  'user.phone.code_expired': 'resetCodeExpired',
  'delivery.mail_unavailable': 'verifyUnavailable',
  'delivery.sms_unavailable': 'verifyUnavailable',
};

export interface VerificationPageOptions {
  readonly channel: ContactChannel;
  readonly address: string;
  readonly error?: MessageKey;
  /** A new code was sent ("Send again"). */
  readonly sent?: boolean;
}

export function renderVerificationPage(ctx: FormContext, options: VerificationPageOptions): HttpReply {
  const email = options.channel === 'email';
  const data = { intro: ctx.tr.t(email ? 'verifyEmailIntro' : 'verifyPhoneIntro'), address: options.address, sent: options.sent === true, errorText: errorText(ctx, options.error) };
  return renderLoginPage(ctx, 'verify-contact', ctx.tr.t(email ? 'verifyEmailTitle' : 'verifyPhoneTitle'), data, options.error === undefined ? 200 : 400);
}

/** The page of the awaitingVerification step (render-step.ts). */
export async function renderVerificationStep(ctx: LoginContext, error?: MessageKey, sent?: boolean): Promise<HttpReply> {
  const held = await heldUser(ctx);
  if (held === undefined) return advance(ctx, { type: 'verification.completed' });
  return renderVerificationPage(ctx.form, { channel: held.channel, address: held.address, ...(error === undefined ? {} : { error }), ...(sent === true ? { sent } : {}) });
}

/** The user the login is held for, the channel and address to verify; undefined when nothing is left to verify. */
async function heldUser(ctx: LoginContext) {
  const userId = ctx.stored.machine.context.session?.userId;
  if (userId === undefined) return undefined;
  const channel = await pendingVerificationOf(ctx.deps, ctx.instanceId, userId);
  const user = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
  if (channel === undefined || user === undefined || user.state.type !== 'human') return undefined;
  const target = { instanceId: ctx.instanceId, orgId: user.state.orgId, userId, creator: userId };
  return { channel, address: addressOf(user.state, channel), target };
}

function refusalOf(error: unknown): MessageKey {
  const refused = error instanceof AppError ? REFUSALS[error.code] : undefined;
  if (refused === undefined) throw error;
  return refused;
}

/** The code: verifies the address, then the login goes on (the gate may hold again for the phone). */
export async function submitVerificationStep(ctx: LoginContext, formParams: FormParams): Promise<HttpReply> {
  if (ctx.stored.machine.value !== 'awaitingVerification') return renderStep(ctx);
  const held = await heldUser(ctx);
  if (held === undefined) return advance(ctx, { type: 'verification.completed' });
  const code = (formParams.get('code') ?? '').trim();
  if (code === '' || code.length > MAX_INPUT) return renderVerificationStep(ctx, 'resetCodeInvalid');
  try {
    await verifyContactVerificationCode(ctx.deps.actors, held.target, held.channel, code);
  } catch (error) {
    return renderVerificationStep(ctx, refusalOf(error));
  }
  return advance(ctx, { type: 'verification.completed' });
}

/** "Send again": a new code (it replaces the previous one). */
export async function resendVerificationStep(ctx: LoginContext): Promise<HttpReply> {
  if (ctx.stored.machine.value !== 'awaitingVerification') return renderStep(ctx);
  const held = await heldUser(ctx);
  if (held === undefined) return advance(ctx, { type: 'verification.completed' });
  try {
    await sendContactVerificationCode(ctx.deps.actors, ctx.deps.config, held.target, held.channel);
  } catch (error) {
    return renderVerificationStep(ctx, refusalOf(error));
  }
  return renderVerificationStep(ctx, undefined, true);
}
