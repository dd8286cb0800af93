/**
 * The login UI's second step (issue 14): after the first factor — the password, or an external
 * login of a linked account — a user with a second factor gets the code page, for one of their
 * factors: a TOTP code from the authenticator app, or a code sent by SMS or by email through the
 * durable outbox (src/query/otp-message.ts). The page offers the user's other factors (a
 * "use … instead" button each; choosing SMS or email sends a code) and, for a sent code, "Send
 * a new code". A user with passkeys gets the passkey on the same page (passkey.ts; only the
 * passkey when they have no code factor). Sending and checking count against the password rate
 * limits (routes.ts), checks count towards the `maxOtpAttempts` lockout. The session is created
 * only with both factors; its amr then holds `otp` (or `user` for the passkey) and `mfa`.
 * Only the factors the policy of the user's organization allows (`secondFactors`) are offered,
 * sent and accepted; a code of another factor is refused like a wrong one.
 *
 * The first factor stays in the auth request (its machine context): `passwordCheckedAt` (a
 * password changed meanwhile starts the login again), the IDP of the external login, or a
 * passwordless passkey the policy does not count as multi-factor where MFA is forced.
 */
import { AppError, userKind, type AggregateRecord, type HumanUser, type OtpMethod, type User } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import type { FormParams } from '../oidc/shared/form.js';
import { ONE_TIME_CODE_DIGITS } from '../query/one-time-code.js';
import { canSendOtp, checkOtpLoginCode, sendOtpLoginCode } from '../query/otp-message.js';
import { allowedCodeFactorsOf, allowedSecondFactorsOf } from '../query/second-factors.js';
import { createSecondFactorSession, logInWithTotp, parseSessionCookie, toSessionCookie, type FirstFactor, type PasswordLogin } from './browser-sessions.js';
import type { LoginContext } from './login-context.js';
import { userPolicyOf } from './login-policy.js';
import { passkeyFormFor, renderPasskeySecondFactorPage } from './passkey.js';
import { renderSecondFactorPage } from './second-factor-pages.js';
import { renderStep } from './render-step.js';
import { advance } from './steps.js';

const MAX_INPUT = 1024;
const METHODS: readonly OtpMethod[] = ['totp', 'sms', 'email'];
const CODE = new RegExp(`^\\d{${ONE_TIME_CODE_DIGITS}}$`, 'u');

type Human = AggregateRecord<HumanUser>;

/** The first factor of this login while the code is awaited; undefined outside the code step. */
function firstFactorOf(ctx: LoginContext): FirstFactor | undefined {
  const { passwordCheckedAt, idpId, passkeyId, passkeyUserVerified } = ctx.stored.machine.context;
  if (passwordCheckedAt !== undefined) return { passwordCheckedAt };
  if (passkeyId !== undefined) return { passkeyId, userVerified: passkeyUserVerified === true };
  return idpId === undefined ? undefined : { idpId };
}

async function readHuman(ctx: LoginContext, userId: string | undefined): Promise<Human | undefined> {
  if (userId === undefined || userId === '') return undefined;
  const user = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
  return user?.state.type === 'human' ? (user as Human) : undefined;
}

async function readHumanState(ctx: LoginContext, userId: string): Promise<HumanUser | undefined> {
  return (await readHuman(ctx, userId))?.state;
}

/**
 * Sends a code of `method` to the user (SMS, email); nothing for TOTP. A channel the instance
 * cannot deliver on (no provider) answers the page's message instead.
 */
async function sendCode(ctx: LoginContext, user: Human, method: OtpMethod): Promise<MessageKey | undefined> {
  if (method === 'totp') return undefined;
  try {
    await sendOtpLoginCode(ctx.deps.actors, ctx.deps.config, { instanceId: ctx.instanceId, orgId: user.state.orgId, userId: user.id, creator: user.id }, method);
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.kind === 'failed_precondition') return 'otpDeliveryUnavailable';
    throw error;
  }
}

/**
 * Whether a code of `method` may go out: TOTP always; SMS / email only to a verified number or
 * address (it may have changed since the factor was added; the factor stays required).
 */
function destinationVerified(user: User, method: OtpMethod): boolean {
  if (method === 'totp' || user.type !== 'human') return true;
  return method === 'sms' ? user.phone.verified : user.email.verified;
}

/**
 * The user's code factors (TOTP, SMS, email) the policy of the user's organization allows
 * (`secondFactors`): only these are offered, sent and accepted.
 */
async function allowedCodes(ctx: LoginContext, user: User | undefined): Promise<OtpMethod[]> {
  return user === undefined ? [] : allowedCodeFactorsOf(user, await userPolicyOf(ctx.deps.actors, ctx.instanceId, user));
}

/** Whether the policy allows this user's passkeys as the second factor (`u2f`). */
async function passkeyAllowed(ctx: LoginContext, user: User): Promise<boolean> {
  return allowedSecondFactorsOf(user, await userPolicyOf(ctx.deps.actors, ctx.instanceId, user)).includes('passkey');
}

/** The factor the code page starts with: the first of TOTP, SMS, email the user has, the policy allows and the instance can deliver. */
async function firstMethod(ctx: LoginContext, user: User): Promise<OtpMethod> {
  const factors = await allowedCodes(ctx, user);
  for (const method of factors) {
    if (method === 'totp' || (destinationVerified(user, method) && (await canSendOtp(ctx.deps.actors, ctx.deps.config, ctx.instanceId, method)))) return method;
  }
  return factors[0] ?? 'totp';
}

/** After the password: the code page for the user's first factor (a code sent for SMS / email). */
export async function enterSecondFactorAfterPassword(ctx: LoginContext, user: User, passwordCheckedAt: number): Promise<HttpReply> {
  const method = await firstMethod(ctx, user);
  const human = await readHuman(ctx, ctx.stored.machine.context.userId);
  if (human !== undefined) await sendCode(ctx, human, method);
  return advance(ctx, { type: 'otp.required', passwordCheckedAt, method });
}

/** After an external login of a linked account with a second factor: the code page, no session yet. */
export async function enterSecondFactorAfterIdp(ctx: LoginContext, user: Human, loginName: string, idpId: string): Promise<HttpReply> {
  if (user.state.state === 'locked') return renderStep(ctx, 'userLocked');
  if (user.state.state === 'inactive') return renderStep(ctx, 'userInactive');
  const method = await firstMethod(ctx, user.state);
  await sendCode(ctx, user, method);
  return advance(ctx, { type: 'external.otp.required', userId: user.id, loginName, idpId, idpCheckedAt: ctx.deps.clock.now(), method });
}

/**
 * A passwordless passkey the login policy does not count as multi-factor where MFA is forced
 * (passkey.ts): the code page of the user's first allowed code factor, the passkey the first
 * factor. The caller checked that the user has an allowed code factor.
 */
export async function enterSecondFactorAfterPasskey(ctx: LoginContext, user: Human, loginName: string, passkey: { readonly id: string; readonly userVerified: boolean }): Promise<HttpReply> {
  const method = await firstMethod(ctx, user.state);
  await sendCode(ctx, user, method);
  return advance(ctx, { type: 'passkey.otp.required', userId: user.id, loginName, passkeyId: passkey.id, userVerified: passkey.userVerified, method });
}

/** Whether the user has a code factor the policy allows (the second factor after a passwordless passkey). */
export async function hasAllowedCodeFactor(ctx: LoginContext, user: User): Promise<boolean> {
  return (await allowedCodes(ctx, user)).length > 0;
}

/**
 * The code page of the current factor; for a user with passkeys also the passkey (passkey.ts),
 * and only the passkey for a user with no code factor.
 */
export async function renderSecondFactorStep(ctx: LoginContext, error?: MessageKey): Promise<HttpReply> {
  const { loginName, otpMethod, userId, passkeyId } = ctx.stored.machine.context;
  const user = await readHuman(ctx, userId);
  const codes = await allowedCodes(ctx, user?.state);
  // The passkey as second factor when the policy allows it (u2f), not after a passwordless passkey.
  const passkey = user !== undefined && passkeyId === undefined && (await passkeyAllowed(ctx, user.state)) ? await passkeyFormFor(ctx, user) : undefined;
  if (user !== undefined && passkey !== undefined && codes.length === 0) return renderPasskeySecondFactorPage(ctx, passkey, error);
  const method = otpMethod ?? 'totp';
  const others = codes.filter((m) => m !== method);
  const sentTo = user === undefined || method === 'totp' ? undefined : method === 'sms' ? maskPhone(user.state.phone.number) : maskEmail(user.state.email.address);
  const unavailable = user !== undefined && !destinationVerified(user.state, method);
  return renderSecondFactorPage(ctx.form, {
    loginName: loginName ?? '',
    method,
    others,
    unavailable,
    ...(sentTo === undefined ? {} : { sentTo }),
    ...(passkey === undefined ? {} : { passkey }),
    ...(error === undefined ? {} : { error }),
  });
}

/** "Use … instead": switches to another of the user's factors (sending a code for SMS / email). */
export async function selectSecondFactor(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const wanted = form.get('method') ?? '';
  const user = await readHuman(ctx, ctx.stored.machine.context.userId);
  if (ctx.stored.machine.value !== 'awaitingOtp' || user === undefined) return renderStep(ctx);
  const method = METHODS.find((m) => m === wanted);
  if (method === undefined || !(await allowedCodes(ctx, user.state)).includes(method)) return renderSecondFactorStep(ctx);
  // A channel that cannot deliver now keeps the current factor, with the message.
  const refused = await sendCode(ctx, user, method);
  return refused === undefined ? advance(ctx, { type: 'otp.method.selected', method }) : renderSecondFactorStep(ctx, refused);
}

/** "Send a new code" for the SMS / email factor. */
export async function resendSecondFactorCode(ctx: LoginContext): Promise<HttpReply> {
  const { otpMethod, userId } = ctx.stored.machine.context;
  const user = await readHuman(ctx, userId);
  if (ctx.stored.machine.value !== 'awaitingOtp' || user === undefined || otpMethod === undefined || otpMethod === 'totp') return renderStep(ctx);
  if (!(await allowedCodes(ctx, user.state)).includes(otpMethod)) return renderSecondFactorStep(ctx);
  const refused = await sendCode(ctx, user, otpMethod);
  return renderSecondFactorStep(ctx, refused ?? 'otpCodeSent');
}

/** The code: checked for the current factor; a wrong, expired or used code shows the page again with the error. */
export async function submitSecondFactor(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const { userId, otpMethod } = ctx.stored.machine.context;
  const first = firstFactorOf(ctx);
  if (ctx.stored.machine.value !== 'awaitingOtp' || userId === undefined || userId === '' || first === undefined) return renderStep(ctx);
  const code = (form.get('code') ?? '').trim().slice(0, MAX_INPUT);
  const method = otpMethod ?? 'totp';
  // A factor the policy does not allow (it changed during the login) is refused like a wrong code, unchecked.
  if (!(await allowedCodes(ctx, await readHumanState(ctx, userId))).includes(method)) {
    if (ctx.req.notes !== undefined) ctx.req.notes.login = 'otp:factor_not_allowed';
    return renderSecondFactorStep(ctx, 'otpInvalid');
  }
  const login = method === 'totp' ? await logInWithTotp(ctx.deps.actors, ctx.instanceId, userId, code, first, ctx.req) : await checkSentCode(ctx, userId, method, code, first);
  if (!login.ok) return renderSecondFactorStep(ctx, login.error);
  const cookie = toSessionCookie([login.held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
  return advance(ctx, { type: 'otp.verified', session: login.held.session }, { 'set-cookie': cookie });
}

/** A code sent by SMS / email: recorded on the user (single use, lockout), then the session with both factors. */
async function checkSentCode(ctx: LoginContext, userId: string, channel: 'sms' | 'email', code: string, first: FirstFactor): Promise<PasswordLogin> {
  const login = await checkSentCodeOnce(ctx, userId, channel, code, first);
  if (ctx.req.notes !== undefined) ctx.req.notes.login = `otp:${login.ok ? 'success' : login.error}`;
  return login;
}

async function checkSentCodeOnce(ctx: LoginContext, userId: string, channel: 'sms' | 'email', code: string, first: FirstFactor): Promise<PasswordLogin> {
  const { actors } = ctx.deps;
  const user = await readHuman(ctx, userId);
  if (user === undefined) return { ok: false, error: 'userNotFound' };
  if (user.state.state === 'locked') return { ok: false, error: 'userLocked' };
  if (user.state.state === 'inactive') return { ok: false, error: 'userInactive' };
  if ('passwordCheckedAt' in first && user.state.passwordChangedAt > first.passwordCheckedAt) return { ok: false, error: 'loginFailed' };
  if ('passkeyId' in first && !(user.state.passkeys ?? []).some((p) => p.id === first.passkeyId)) return { ok: false, error: 'loginFailed' };
  // A malformed code is refused without counting (like a malformed TOTP code).
  if (!CODE.test(code)) return { ok: false, error: 'otpMessageInvalid' };
  const recorded = await checkOtpLoginCode(actors, { instanceId: ctx.instanceId, orgId: user.state.orgId, userId, creator: userId }, channel, code);
  if (recorded.outcome === 'locked' || recorded.lockedNow) return { ok: false, error: 'userLocked' };
  if (recorded.outcome !== 'valid') return { ok: false, error: recorded.expired ? 'otpCodeExpired' : 'otpMessageInvalid' };
  return createSecondFactorSession(actors, ctx.instanceId, userId, first, { otpMessageChecked: channel }, ctx.req);
}

/** `+491701234567` → `•••••••••67`: enough to recognise the phone, not to learn the number. */
export function maskPhone(number: string): string {
  return number.length <= 2 ? number : `${'•'.repeat(Math.max(3, number.length - 2))}${number.slice(-2)}`;
}

/** `alice@example.com` → `a•••@example.com`. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  return at <= 0 ? address : `${address[0]}•••${address.slice(at)}`;
}
