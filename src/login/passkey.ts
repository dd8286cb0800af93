/**
 * Passkeys in the login UI (WebAuthn, issue 14):
 * - passwordless: the login name page's "Sign in with a passkey" (a plain form button) opens the
 *   passkey page (`awaitingPasskey`); the browser offers the discoverable passkeys of this RP,
 *   the assertion's user handle names the user (the user id set at registration);
 * - second factor: after the first factor (password or external login) of a user with a
 *   passkey, the code page (second-factor.ts) offers the passkey beside the user's code factors
 *   (TOTP, SMS, email), or alone for a user with none.
 * The pages that offer a passkey load one small script of the login UI's own origin
 * (`/ui/login/passkey.js`, CSP `script-src 'self'` on these pages only; every other page runs no
 * script): it calls navigator.credentials.get with the options of the form and posts the answer
 * (base64url JSON) with the form. Each render of such a page stores a new challenge for the auth
 * request (TTL store, SHA-256 digest only, 5 minutes on the node's clock); a submit takes it
 * (single use). The assertion is verified (challenge, RP ID = the issuer's host, origin = the
 * issuer origin, user verification) and the signature counter must grow (recorded on the user
 * through the actor, so a cloned authenticator or a replayed assertion is refused). The session
 * gets `session.webAuthN.checked` (amr `user`, and `mfa`: a user-verified passkey counts as two).
 * Login policy (of the page, and of the user's organization): passwordless only while
 * `passwordlessAllowed` (else a 403 refusal page), the second factor only while `secondFactors`
 * holds `u2f`; a passwordless passkey counts as two only while `multiFactors` holds `passkey` —
 * otherwise, where MFA is forced, it is the first factor and a code of the user follows.
 */
import {
  AppError,
  type AggregateRecord,
  type HumanUser,
  mfaRequired,
  recordPasskeyUse,
  userKind,
} from '../../actors/index.js';
import {
  authenticationResponseSchema,
  challengeDigest,
  newChallenge,
  requestOptions,
  verifyAssertion,
  WEBAUTHN_CHALLENGE_TTL_MS,
  type AuthenticationResponse,
  type RelyingParty,
} from '../crypto/webauthn.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import type { FormParams } from '../oidc/shared/form.js';
import { displayLoginName } from './appearance.js';
import { createHeldSession, parseSessionCookie, preferredLoginName, toSessionCookie, type PasswordLogin } from './browser-sessions.js';
import type { LoginContext } from './login-context.js';
import { pagePolicyOf, renderRefusedPage, userPolicyOf } from './login-policy.js';
import { enterSecondFactorAfterPasskey, hasAllowedCodeFactor } from './second-factor.js';
import { admitsOrg, loginOrgOf } from './login-org.js';
import { errorText, renderLoginPage } from './pages.js';
import { renderStep } from './render-step.js';
import { PASSKEY_SCRIPT_PATH } from './passkey-script.js';
import { advance } from './steps.js';

/** TTL store table of login challenges (key: the auth request id). */
const LOGINS = 'passkey_logins';
/** A posted assertion is a few hundred bytes; anything much larger is not one. */
const MAX_CREDENTIAL = 16_384;

interface PendingLogin extends RelyingParty {
  readonly challengeDigest: string;
  /** The user the second factor is for (absent: passwordless, any user of the passkey). */
  readonly userId?: string;
}

/** RP ID and origin of the login: the issuer the request came in under. */
export function relyingPartyOf(ctx: LoginContext): RelyingParty {
  const url = new URL(ctx.stored.issuer);
  return { rpId: url.hostname, origin: url.origin };
}

/** A new single-use challenge for the auth request and the request options carrying it. */
async function newLoginOptions(ctx: LoginContext, user?: AggregateRecord<HumanUser>): Promise<string> {
  const rp = relyingPartyOf(ctx);
  const challenge = newChallenge();
  const pending: PendingLogin = { challengeDigest: challengeDigest(challenge), ...rp, ...(user === undefined ? {} : { userId: user.id }) };
  await ctx.deps.ttl.put(ctx.instanceId, LOGINS, ctx.stored.id, pending, ctx.deps.clock.now() + WEBAUTHN_CHALLENGE_TTL_MS);
  const options = await requestOptions({ rpId: rp.rpId, challenge, ...(user === undefined ? {} : { allow: user.state.passkeys ?? [] }) });
  return JSON.stringify(options);
}

/** The `_passkey-form` template's data: the options as text (a data attribute), the texts, the script. */
function passkeyFormData(ctx: LoginContext, options: string): object {
  const tr = ctx.form.tr;
  return { options, submit: tr.t('passkeyUse'), noScript: tr.t('passkeyNoScript'), scriptPath: PASSKEY_SCRIPT_PATH };
}

/** Passwordless (`awaitingPasskey`): the browser offers any passkey of this RP. */
export async function renderPasskeyPage(ctx: LoginContext, error?: MessageKey): Promise<HttpReply> {
  const data = { passkey: passkeyFormData(ctx, await newLoginOptions(ctx)), errorText: errorText(ctx.form, error) };
  return renderLoginPage(ctx.form, 'passkey', ctx.form.tr.t('passkeySignIn'), data, error === undefined ? 200 : 400, { script: true });
}

/** The `_passkey-form` data for the second factor of this user (a new challenge for their passkeys). */
export async function passkeyFormFor(ctx: LoginContext, user: AggregateRecord<HumanUser>): Promise<object> {
  return passkeyFormData(ctx, await newLoginOptions(ctx, user));
}

/** The second factor of a user whose only second factor is a passkey (second-factor.ts offers it beside codes otherwise). */
export function renderPasskeySecondFactorPage(ctx: LoginContext, passkey: object, error?: MessageKey): HttpReply {
  const loginName = ctx.stored.machine.context.loginName ?? '';
  const data = { displayName: displayLoginName(ctx.form.tr, loginName), passkey, errorText: errorText(ctx.form, error) };
  return renderLoginPage(ctx.form, 'second-factor', ctx.form.tr.t('title'), data, error === undefined ? 200 : 400, { script: true });
}

/** The login name page's "Sign in with a passkey". */
export function requestPasskeyLogin(ctx: LoginContext): Promise<HttpReply> {
  return advance(ctx, { type: 'passkey.requested' });
}

/**
 * A passwordless passkey the user's login policy does not count as multi-factor (multiFactors
 * without `passkey`) where MFA is forced for a local login: recorded, no session; the code of an
 * allowed second factor is asked next.
 */
interface PasskeyFirstFactor {
  readonly ok: 'first';
  readonly user: AggregateRecord<HumanUser>;
  readonly passkey: { readonly id: string; readonly userVerified: boolean };
}

/** A posted assertion (passwordless or second factor): on success a session and the code. */
export async function submitPasskey(ctx: LoginContext, posted: FormParams): Promise<HttpReply> {
  const step = ctx.stored.machine.value;
  if (step !== 'awaitingPasskey' && step !== 'awaitingOtp') return renderStep(ctx);
  // Login policy: passwordless login off for the page (passwordlessAllowed): refused like registration.
  if (step === 'awaitingPasskey' && !(await pagePolicyOf(ctx)).passwordlessAllowed) return renderRefusedPage(ctx, 'passwordlessDisabled');
  const pending = (await ctx.deps.ttl.take(ctx.instanceId, LOGINS, ctx.stored.id)) as PendingLogin | undefined;
  const response = parseCredential(posted.get('credential'));
  const login = pending === undefined || response === undefined ? refused('passkeyFailed') : await checkPasskey(ctx, step, pending, response);
  if (ctx.req.notes !== undefined) ctx.req.notes.login = `passkey:${login.ok === 'first' ? 'first_factor' : login.ok ? 'success' : login.error}`;
  if (login.ok === 'first') {
    // No allowed code factor to follow: set one up after a password, as after an external login.
    if (!(await hasAllowedCodeFactor(ctx, login.user.state))) return renderRefusedPage(ctx, 'mfaSetUpWithPassword');
    return enterSecondFactorAfterPasskey(ctx, login.user, await preferredLoginName(ctx.deps.actors, ctx.instanceId, login.user), login.passkey);
  }
  if (!login.ok) return login.error === 'passwordlessDisabled' ? renderRefusedPage(ctx, login.error) : renderStep(ctx, login.error);
  const cookie = toSessionCookie([login.held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
  const { session } = login.held;
  return advance(ctx, { type: 'passkey.verified', userId: session.userId, loginName: session.loginName, session }, { 'set-cookie': cookie });
}

function refused(error: MessageKey): PasswordLogin {
  return { ok: false, error };
}

function parseCredential(text: string | undefined): AuthenticationResponse | undefined {
  if (text === undefined || text === '' || text.length > MAX_CREDENTIAL) return undefined;
  try {
    const parsed = authenticationResponseSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whose passkey: for the second factor the user of the login (a passkey of anyone else is
 * refused), passwordless the user the assertion's user handle names (within an org-scoped
 * request only a user of that org). Then the signature, then the counter (through the actor).
 */
async function checkPasskey(ctx: LoginContext, step: 'awaitingPasskey' | 'awaitingOtp', pending: PendingLogin, response: AuthenticationResponse): Promise<PasswordLogin | PasskeyFirstFactor> {
  const { actors } = ctx.deps;
  const { userId: loginUserId, passwordCheckedAt, idpId } = ctx.stored.machine.context;
  const handle = response.response.userHandle === undefined ? undefined : Buffer.from(response.response.userHandle, 'base64url').toString('utf8');
  const userId = step === 'awaitingOtp' ? loginUserId : handle;
  if (userId === undefined || userId === '' || (handle !== undefined && handle !== userId)) return refused('passkeyFailed');
  if (pending.userId !== undefined && pending.userId !== userId) return refused('passkeyFailed');
  // The second factor needs the first one of this login: the password or an external login.
  if (step === 'awaitingOtp' && passwordCheckedAt === undefined && idpId === undefined) return refused('loginFailed');
  const user = await actors.readRecord(ctx.instanceId, userKind, userId);
  if (user === undefined || user.state.type !== 'human') return refused('passkeyFailed');
  const human = user.state;
  if (!admitsOrg(await loginOrgOf(actors, ctx.instanceId, ctx.stored.request.scopes), human.orgId)) return refused('passkeyFailed');
  if (human.state === 'locked') return refused('userLocked');
  if (human.state === 'inactive') return refused('userInactive');
  if (step === 'awaitingOtp' && passwordCheckedAt !== undefined && human.passwordChangedAt > passwordCheckedAt) return refused('loginFailed');
  // The policy of the user's organization: passwordless login, the passkey as second factor (u2f).
  const policy = await userPolicyOf(actors, ctx.instanceId, human);
  if (step === 'awaitingPasskey' && !policy.passwordlessAllowed) return refused('passwordlessDisabled');
  if (step === 'awaitingOtp' && !policy.secondFactors.includes('u2f')) return refused('passkeyFailed');
  const passkey = (human.passkeys ?? []).find((p) => p.credentialId === response.id);
  if (passkey === undefined) return refused('passkeyFailed');
  const verified = await verifyAssertion(response, passkey, pending);
  if (!verified.ok || !verified.userVerified) return refused('passkeyFailed');
  const outcome = await actors.ask(
    { kind: 'org', instanceId: ctx.instanceId, orgId: human.orgId },
    recordPasskeyUse,
    { orgId: human.orgId, userId, passkeyId: passkey.id, counter: verified.counter },
    { creator: userId },
  );
  if (outcome === 'locked') return refused('userLocked');
  if (outcome !== 'valid') return refused('passkeyFailed');
  const after = await actors.readRecord(ctx.instanceId, userKind, userId);
  if (after === undefined || after.state.type !== 'human') return refused('passkeyFailed');
  // Passwordless: multi-factor only when the policy counts a user-verified passkey (multiFactors).
  const multiFactor = policy.multiFactors.includes('passkey') && verified.userVerified;
  if (step === 'awaitingPasskey' && !multiFactor && mfaRequired(policy, false)) {
    return { ok: 'first', user: after as AggregateRecord<HumanUser>, passkey: { id: passkey.id, userVerified: verified.userVerified } };
  }
  const proof = { passkey: { id: passkey.id, userVerified: verified.userVerified, ...(step === 'awaitingPasskey' ? { multiFactor } : {}) } };
  try {
    const first = step !== 'awaitingOtp' ? {} : passwordCheckedAt !== undefined ? { verifiedPasswordHash: after.state.passwordHash } : idpId === undefined ? {} : { idpId };
    const factors = { ...proof, ...first };
    return { ok: true, held: await createHeldSession(actors, ctx.instanceId, after, factors, ctx.req) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'user.locked') return refused('userLocked');
    if (error.code === 'user.inactive') return refused('userInactive');
    if (error.code === 'session.password_invalid') return refused('loginFailed');
    // The user's organization was removed, or the passkey meanwhile: no session, no 500.
    if (error.kind === 'not_found' || error.kind === 'failed_precondition') return refused('passkeyFailed');
    throw error;
  }
}
