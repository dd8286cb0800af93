/**
 * The user agent's login sessions: PlatformSessions whose tokens the browser holds in one
 * cookie (several, so the user can pick an account). Only sessions with a password check count
 * as authenticated here, and for a user with a second factor (TOTP, OTP by email or SMS) only
 * sessions that also checked one (a session from before the enrolment, or a password-only
 * session made through the sessions API, asks for both factors again). The cookie is
 * HttpOnly, SameSite=Lax, Path=/ and Secure unless the external URL is plain http
 * (TESSERA_EXTERNAL_SECURE=false, e.g. http://localhost).
 */
import {
  AppError,
  orgKind,
  recordOtpCheck,
  sessionAmr,
  sessionAuthTime,
  userKind,
  type ActorSystem,
  type AggregateRecord,
  type BrowserSessionSummary,
  type ErrorCode,
  type HumanUser,
  type Session,
  type User,
} from '../../actors/index.js';
import { matchTotp, normalizeRecoveryCode, TOTP_CODE } from '../crypto/totp.js';
import { tokenDigest } from '../crypto/token-digest.js';
import { createLoginSession, findSessionByToken, terminateSession, type SessionFactorInput } from '../query/sessions.js';
import { loginNamesOf, verifyUserPassword, type PasswordCheckOutcome } from '../query/user-auth.js';
import { lacksAllowedSecondFactor } from '../query/second-factors.js';
import type { HttpRequest } from '../http/types.js';
import { clearCookie, readCookie, setCookie } from '../http/cookies.js';
import type { MessageKey } from '../i18n/index.js';
import { lacksForcedSecondFactor, userPolicyOf } from './login-policy.js';

export const SESSION_COOKIE = 'tessera_sessions';
export const BROWSER_COOKIE_MAX_AGE_S = 24 * 3600;
const MAX_SESSIONS_PER_BROWSER = 5;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface BrowserSession extends BrowserSessionSummary {
  /** Preferred login name of the user, for the account picker. */
  readonly loginName: string;
}

/** A session with the cookie token that found it. */
export interface HeldSession {
  readonly token: string;
  readonly session: BrowserSession;
}

/** The session tokens in a Cookie header (malformed ones dropped). */
export function parseSessionCookie(cookieHeader: string | undefined): string[] {
  const value = readCookie(cookieHeader, SESSION_COOKIE);
  return value === undefined ? [] : value.split('.').filter((t) => TOKEN.test(t)).slice(0, MAX_SESSIONS_PER_BROWSER);
}

/** The Set-Cookie value holding `tokens` (newest first); an empty list clears the cookie. */
export function toSessionCookie(tokens: readonly string[], secure: boolean): string {
  const value = tokens.slice(0, MAX_SESSIONS_PER_BROWSER).join('.');
  const scope = { path: '/', secure };
  return value === '' ? clearCookie(SESSION_COOKIE, scope) : setCookie(SESSION_COOKIE, value, BROWSER_COOKIE_MAX_AGE_S, scope);
}

/** The user's preferred login name (account picker, code page). */
export async function preferredLoginName(actors: ActorSystem, instanceId: string, user: AggregateRecord<User>): Promise<string> {
  const org = await actors.readRecord(instanceId, orgKind, user.state.orgId);
  return loginNamesOf(user.state.username, org?.state).preferredLoginName;
}

/** The live, password-checked sessions the cookie holds, one per user (the newest wins). */
export async function readBrowserSessions(actors: ActorSystem, instanceId: string, cookieHeader: string | undefined): Promise<HeldSession[]> {
  const held: HeldSession[] = [];
  for (const token of parseSessionCookie(cookieHeader)) {
    const record = await findSessionByToken(actors, instanceId, token);
    // Reusable: a password or external IDP login (sessionAuthTime 0 means neither).
    if (record === undefined || sessionAuthTime(record.state) === 0 || held.some((h) => h.session.userId === record.state.userId)) continue;
    const user = await actors.readRecord(instanceId, userKind, record.state.userId);
    if (user === undefined) continue;
    // Login policy: a session without a check of an allowed second factor of the user is not
    // reused, nor one without multi-factor where MFA is forced.
    const policy = await userPolicyOf(actors, instanceId, user.state);
    if (lacksAllowedSecondFactor(user.state, record.state, policy) || lacksForcedSecondFactor(policy, record.state)) continue;
    const session: BrowserSession = {
      sessionId: record.id,
      userId: record.state.userId,
      authTime: sessionAuthTime(record.state),
      amr: sessionAmr(record.state),
      loginName: await preferredLoginName(actors, instanceId, user),
    };
    held.push({ token, session });
  }
  return held;
}

/** `verified`: the password was checked against the user's hash (it took a hash's time). */
export type PasswordLogin = { readonly ok: true; readonly held: HeldSession } | { readonly ok: false; readonly error: MessageKey; readonly verified?: boolean };

/** Error codes the page answers with a message instead of an error page (a misspelt code fails typecheck). */
const REFUSALS: Readonly<Partial<Record<ErrorCode, MessageKey>>> = {
  'user.locked': 'userLocked',
  'user.inactive': 'userInactive',
  'user.not_found': 'userNotFound',
  'user.not_human': 'userNotFound',
  'user.password_not_set': 'noPassword',
  // The passkey of a passwordless first factor was removed before the code.
  'session.passkey_not_found': 'loginFailed',
};

/** Verifies the password (lockout accounting included) and creates a session for it. */
export async function logInWithPassword(actors: ActorSystem, instanceId: string, userId: string, password: string, req: HttpRequest): Promise<PasswordLogin> {
  return noteLogin(req, 'password', await checkPassword(actors, instanceId, userId, password, req));
}

/** Notes the outcome for the login metrics (`password:success`, `password:passwordInvalid`, ...). */
function noteLogin(req: HttpRequest, method: 'password' | 'idp', login: PasswordLogin): PasswordLogin {
  if (req.notes !== undefined) req.notes.login = `${method}:${login.ok ? 'success' : login.error}`;
  return login;
}

async function checkPassword(actors: ActorSystem, instanceId: string, userId: string, password: string, req: HttpRequest): Promise<PasswordLogin> {
  const user = await actors.readRecord(instanceId, userKind, userId);
  if (user === undefined) return { ok: false, error: 'userNotFound' };
  try {
    return { ok: true, held: await createHeldSession(actors, instanceId, user, { password }, req) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const refusal = REFUSALS[error.code];
    if (refusal !== undefined) return { ok: false, error: refusal };
    if (error.code !== 'session.password_invalid') throw error;
    // This failure may just have locked the user (the instance's max attempts).
    const after = await actors.readRecord(instanceId, userKind, userId);
    return { ok: false, error: after?.state.state === 'locked' ? 'userLocked' : 'passwordInvalid', verified: true };
  }
}

/** Creates a session proven by `factors` (a verified password, or an external IDP login) for the browser. */
export async function createHeldSession(actors: ActorSystem, instanceId: string, user: AggregateRecord<User>, factors: SessionFactorInput, req: HttpRequest): Promise<HeldSession> {
  const userAgent = { userAgent: (req.headers['user-agent'] ?? '').slice(0, 500), ip: req.remoteAddress };
  const created = await createLoginSession(actors, instanceId, user, factors, { userAgent });
  const session: BrowserSession = {
    sessionId: created.sessionId,
    userId: user.id,
    authTime: created.session === undefined ? actors.clock.now() : sessionAuthTime(created.session.state),
    amr: created.session === undefined ? [] : sessionAmr(created.session.state),
    loginName: await preferredLoginName(actors, instanceId, user),
  };
  return { token: created.sessionToken, session };
}

/**
 * A session for a user who logged in through an external IDP linked to it (the external login
 * resolved the user); refused like a password login when the user is locked or inactive.
 */
export async function logInWithIdp(actors: ActorSystem, instanceId: string, user: AggregateRecord<User>, idpId: string, req: HttpRequest): Promise<PasswordLogin> {
  try {
    return noteLogin(req, 'idp', { ok: true, held: await createHeldSession(actors, instanceId, user, { idpId }, req) });
  } catch (error) {
    const refusal = error instanceof AppError ? REFUSALS[error.code] : undefined;
    if (refusal === undefined) throw error;
    return noteLogin(req, 'idp', { ok: false, error: refusal });
  }
}

/** The Set-Cookie value adding a new session to the ones the browser already holds. */
export function cookieWithSession(held: HeldSession, req: HttpRequest, secure: boolean): string {
  return toSessionCookie([held.token, ...parseSessionCookie(req.headers.cookie)], secure);
}

/** Terminates the sessions (end_session); sessions already gone are skipped. */
export async function terminateBrowserSessions(actors: ActorSystem, instanceId: string, sessions: readonly HeldSession[]): Promise<void> {
  for (const { session } of sessions) {
    try {
      await terminateSession(actors, instanceId, session.sessionId);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'session.not_found') throw error;
    }
  }
}

/** The first step of a two-factor login: the password is verified and recorded (lockout), no session yet. */
export type PasswordStep = { readonly ok: true; readonly checkedAt: number } | { readonly ok: false; readonly error: MessageKey; readonly verified?: boolean };

const PASSWORD_REFUSALS: Readonly<Partial<Record<PasswordCheckOutcome, MessageKey>>> = {
  locked: 'userLocked',
  inactive: 'userInactive',
  not_found: 'userNotFound',
  not_human: 'userNotFound',
  no_password: 'noPassword',
  unsupported_hash: 'passwordInvalid',
};

export async function checkPasswordStep(actors: ActorSystem, instanceId: string, userId: string, password: string, req: HttpRequest): Promise<PasswordStep> {
  const result = await verifyUserPassword(actors, instanceId, userId, password, { creator: userId });
  const step: PasswordStep =
    result.outcome === 'valid'
      ? { ok: true, checkedAt: actors.clock.now() }
      : result.outcome === 'invalid'
        ? { ok: false, error: result.lockedNow ? 'userLocked' : 'passwordInvalid', verified: true }
        : { ok: false, error: PASSWORD_REFUSALS[result.outcome] ?? 'passwordInvalid' };
  if (req.notes !== undefined) req.notes.login = `password:${step.ok ? 'success' : step.error}`;
  return step;
}

/**
 * The first factor of a two-factor login, verified in an earlier step of the same login: the
 * password (at `passwordCheckedAt`; a password changed since starts the login again), or an
 * external login through a linked IDP.
 */
export type FirstFactor = { readonly passwordCheckedAt: number } | { readonly idpId: string } | { readonly passkeyId: string; readonly userVerified: boolean };

/**
 * The second step: the TOTP code of a user whose first factor was verified (`first`).
 * The check is recorded on the user (replay of an accepted step refused; failures count towards
 * `maxOtpAttempts`); on success a session with both checks is created. A recovery code (any
 * input that is not six digits) is used up instead. A malformed code is refused without
 * counting.
 */
export async function logInWithTotp(actors: ActorSystem, instanceId: string, userId: string, code: string, first: FirstFactor, req: HttpRequest): Promise<PasswordLogin> {
  const login = await checkTotp(actors, instanceId, userId, code, first, req);
  if (req.notes !== undefined) req.notes.login = `otp:${login.ok ? 'success' : login.error}`;
  return login;
}

/** The user, while the first factor still holds: refusals as page messages. */
async function secondStepUser(actors: ActorSystem, instanceId: string, userId: string, first: FirstFactor): Promise<AggregateRecord<HumanUser> | { readonly error: MessageKey }> {
  const user = await actors.readRecord(instanceId, userKind, userId);
  if (user === undefined || user.state.type !== 'human') return { error: 'userNotFound' };
  const human = user.state;
  if (human.state === 'locked') return { error: 'userLocked' };
  if (human.state === 'inactive') return { error: 'userInactive' };
  if ('passwordCheckedAt' in first && human.passwordChangedAt > first.passwordCheckedAt) return { error: 'loginFailed' };
  if ('passkeyId' in first && !(human.passkeys ?? []).some((p) => p.id === first.passkeyId)) return { error: 'loginFailed' };
  return user as AggregateRecord<HumanUser>;
}

async function checkTotp(actors: ActorSystem, instanceId: string, userId: string, code: string, first: FirstFactor, req: HttpRequest): Promise<PasswordLogin> {
  const user = await secondStepUser(actors, instanceId, userId, first);
  if ('error' in user) return { ok: false, error: user.error };
  const human = user.state;
  if (human.totp?.verified !== true) return { ok: false, error: 'loginFailed' };
  const recovery = TOTP_CODE.test(code) ? undefined : normalizeRecoveryCode(code);
  if (!TOTP_CODE.test(code) && recovery === undefined) return { ok: false, error: 'otpInvalid' };
  const step = recovery === undefined ? matchTotp(actors.sealer.open(human.totp.sealedSecret), code, actors.clock.now()) : undefined;
  const recorded = await actors.ask(
    { kind: 'org', instanceId, orgId: human.orgId },
    recordOtpCheck,
    {
      orgId: human.orgId,
      userId,
      sealedSecret: human.totp.sealedSecret,
      ...(step === undefined ? {} : { step }),
      ...(recovery === undefined ? {} : { recoveryDigest: tokenDigest(recovery) }),
    },
    { creator: userId },
  );
  if (recorded.outcome === 'locked' || recorded.lockedNow) return { ok: false, error: 'userLocked' };
  if (recorded.outcome !== 'valid') return { ok: false, error: 'otpInvalid' };
  return createSecondFactorSession(actors, instanceId, userId, first, { totpChecked: true }, req);
}

/**
 * After an accepted second factor (recorded on the user): the session with both checks — the
 * first factor (the password hash it was verified against, or the IDP) and the second.
 */
export async function createSecondFactorSession(
  actors: ActorSystem,
  instanceId: string,
  userId: string,
  first: FirstFactor,
  second: Pick<SessionFactorInput, 'totpChecked' | 'otpMessageChecked' | 'passkey'>,
  req: HttpRequest,
): Promise<PasswordLogin> {
  const after = await actors.readRecord(instanceId, userKind, userId);
  if (after === undefined || after.state.type !== 'human') return { ok: false, error: 'userNotFound' };
  const firstInput: SessionFactorInput =
    'idpId' in first
      ? { idpId: first.idpId }
      : 'passkeyId' in first
        ? // A passwordless passkey the policy does not count as multi-factor: one factor, the code the second.
          { passkey: { id: first.passkeyId, userVerified: first.userVerified, multiFactor: false } }
        : { verifiedPasswordHash: after.state.passwordHash };
  try {
    return { ok: true, held: await createHeldSession(actors, instanceId, after, { ...firstInput, ...second }, req) };
  } catch (error) {
    const refusal = error instanceof AppError ? REFUSALS[error.code] : undefined;
    if (refusal === undefined) throw error;
    return { ok: false, error: refusal };
  }
}
