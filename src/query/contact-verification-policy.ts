/**
 * Whether a login must stop for an email / phone verification (issue 14): the one predicate the
 * login's verification hold (src/oidc/shared/contact-verification-gate.ts) and the login UI's
 * verification step (src/login/contact-verification.ts) are driven by. The policy is the
 * login settings' `emailVerificationRequired` / `phoneVerificationRequired` of the user's
 * organization (its own login policy, else the instance's: src/query/login-settings.ts).
 */
import { userKind, type ActorSystem, type ContactChannel, type User } from '../../actors/index.js';
import { loginSettingsFor } from './login-settings.js';

export interface ContactVerificationPolicy {
  readonly emailVerificationRequired: boolean;
  readonly phoneVerificationRequired: boolean;
}

/** The policy in force for the logins of an organization's users (its login settings, else the instance's). */
export async function readContactVerificationPolicy(actors: ActorSystem, instanceId: string, orgId: string): Promise<ContactVerificationPolicy> {
  const { settings } = await loginSettingsFor(actors, instanceId, orgId);
  return { emailVerificationRequired: settings.emailVerificationRequired, phoneVerificationRequired: settings.phoneVerificationRequired };
}

/**
 * The channel the user must verify before the login finishes, or undefined. Email first; an
 * address the user does not have is nothing to verify.
 */
export function verificationRequiredFor(policy: ContactVerificationPolicy, user: User | undefined): ContactChannel | undefined {
  if (user === undefined || user.type !== 'human') return undefined;
  if (policy.emailVerificationRequired && user.email.address !== '' && !user.email.verified) return 'email';
  if (policy.phoneVerificationRequired && user.phone.number !== '' && !user.phone.verified) return 'phone';
  return undefined;
}

/** The channel the user still has to verify for a login in the instance, if any. */
export async function pendingVerificationOf(deps: { readonly actors: ActorSystem }, instanceId: string, userId: string): Promise<ContactChannel | undefined> {
  const user = (await deps.actors.readRecord(instanceId, userKind, userId))?.state;
  if (user === undefined) return undefined;
  return verificationRequiredFor(await readContactVerificationPolicy(deps.actors, instanceId, user.orgId), user);
}
