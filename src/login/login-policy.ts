/**
 * The login policy in the login UI (issue 14 "Login policy settings", PlatformLoginSettings):
 * which ways in a page offers and which posted steps it refuses. The policy of a page is the
 * one of the organization the auth request names (org scope), else the instance's; whether a
 * user must pass a second factor is decided by the policy of the user's own organization.
 * Everything reads the one effective-policy query (src/query/login-settings.ts).
 */
import { mfaRequired, sessionAmr, type ActorSystem, type LoginSettings, type Session, type User } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import { loginSettingsFor } from '../query/login-settings.js';
import { requiresAllowedSecondFactor } from '../query/second-factors.js';
import type { LoginContext } from './login-context.js';
import { loginOrgOf } from './login-org.js';
import { renderLoginPage } from './pages.js';

/** The policy of the auth request's pages: its organization's (org scope), else the instance's. */
export async function pagePolicyOf(ctx: LoginContext): Promise<LoginSettings> {
  const loginOrg = await loginOrgOf(ctx.deps.actors, ctx.instanceId, ctx.stored.request.scopes);
  return (await loginSettingsFor(ctx.deps.actors, ctx.instanceId, loginOrg.restricted ? loginOrg.orgId : undefined)).settings;
}

/** The policy that applies to a user: the one of the user's organization. */
export async function userPolicyOf(actors: ActorSystem, instanceId: string, user: User): Promise<LoginSettings> {
  return (await loginSettingsFor(actors, instanceId, user.orgId)).settings;
}

/**
 * A local login of a user whose organization forces a second factor and who has none to use
 * (none, or only factors the policy's `secondFactors` do not allow).
 */
export async function mustEnrolSecondFactor(actors: ActorSystem, instanceId: string, user: User | undefined): Promise<boolean> {
  if (user?.type !== 'human') return false;
  const policy = await userPolicyOf(actors, instanceId, user);
  return !requiresAllowedSecondFactor(user, policy) && mfaRequired(policy, false);
}

/**
 * An external login of a user whose organization forces a second factor for every login
 * (forceMfa without forceMfaLocalOnly) and who has none: refused, since enrolment during login
 * follows a password (the user signs in with the password once to set one up).
 */
export async function externalLoginNeedsSecondFactor(actors: ActorSystem, instanceId: string, user: User): Promise<boolean> {
  if (user.type !== 'human') return false;
  const policy = await userPolicyOf(actors, instanceId, user);
  return !requiresAllowedSecondFactor(user, policy) && mfaRequired(policy, true);
}

/** Whether the login asks this user for an allowed second factor after the first (the policy of the user's organization). */
export async function asksSecondFactor(actors: ActorSystem, instanceId: string, user: User | undefined): Promise<boolean> {
  return user?.type === 'human' && requiresAllowedSecondFactor(user, await userPolicyOf(actors, instanceId, user));
}

/**
 * A session the policy of its user's organization does not accept: MFA forced and the session
 * not multi-factor (amr `mfa`). A passwordless passkey alone counts only while the policy's
 * multiFactors hold `passkey` (and it verified the user, and counted when the session was made).
 */
export function lacksForcedSecondFactor(policy: LoginSettings, session: Session): boolean {
  const viaIdp = (session.idpCheckedAt ?? 0) > 0 && session.passwordCheckedAt === 0;
  if (!mfaRequired(policy, viaIdp)) return false;
  if (!sessionAmr(session).includes('mfa')) return true;
  const firstFactor = session.passwordCheckedAt > 0 || (session.idpCheckedAt ?? 0) > 0;
  const code = Math.max(session.totpCheckedAt ?? 0, session.otpEmailCheckedAt ?? 0, session.otpSmsCheckedAt ?? 0) > 0;
  return !firstFactor && !code && !policy.multiFactors.includes('passkey');
}

/** Which policy switch a posted login action needs. */
const GATES: Readonly<Record<string, { readonly allowed: (p: LoginSettings) => boolean; readonly message: MessageKey }>> = {
  register: { allowed: (p) => p.allowRegister, message: 'registrationDisabled' },
  'register.submit': { allowed: (p) => p.allowRegister, message: 'registrationDisabled' },
  password: { allowed: (p) => p.allowUsernamePassword, message: 'passwordLoginDisabled' },
  'reset.request': { allowed: (p) => !p.hidePasswordReset, message: 'passwordResetDisabled' },
  'reset.submit': { allowed: (p) => !p.hidePasswordReset, message: 'passwordResetDisabled' },
  'passkey.start': { allowed: (p) => p.passwordlessAllowed, message: 'passwordlessDisabled' },
};

/** The refusal page (403) of a posted action the policy turns off; undefined when allowed. */
export async function refusedByPolicy(ctx: LoginContext, action: string | undefined): Promise<HttpReply | undefined> {
  const gate = action === undefined ? undefined : GATES[action];
  if (gate === undefined || gate.allowed(await pagePolicyOf(ctx))) return undefined;
  return renderRefusedPage(ctx, gate.message);
}

/**
 * A step the policy turns off, with a way back: "Use another account" when the current state
 * takes it (registering, the enrolment), else nothing but the message.
 */
export function renderRefusedPage(ctx: LoginContext, message: MessageKey, status = 403): HttpReply {
  const back = ['registering', 'awaitingOtp', 'enrollingMfa', 'selectingAccount', 'awaitingPasskey'].includes(String(ctx.stored.machine.value));
  return renderLoginPage(ctx.form, 'refused', ctx.form.tr.t('title'), { message: ctx.form.tr.t(message), back }, status);
}
