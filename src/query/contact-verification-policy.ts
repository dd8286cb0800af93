/**
 * Whether a login must stop for an email / phone verification (issue 14): the one predicate the
 * login's verification hold (src/oidc/shared/contact-verification-gate.ts) and the login UI's
 * verification step (src/login/contact-verification.ts) are driven by. The policy comes
 * from the node defaults TESSERA_LOGIN_EMAIL_VERIFICATION_REQUIRED / _PHONE_ until the login
 * settings carry `emailVerificationRequired` / `phoneVerificationRequired`.
 */
import { userKind, type ActorSystem, type ContactChannel, type User } from '../../actors/index.js';
import type { Config } from '../config/schema.js';

export interface ContactVerificationPolicy {
  readonly emailVerificationRequired: boolean;
  readonly phoneVerificationRequired: boolean;
}

/**
 * The policy in force for the logins of an organization's users (the organization's login
 * settings, else the instance's, once they carry it: loginSettingsFor on branch login-settings).
 */
export async function readContactVerificationPolicy(
  _actors: ActorSystem,
  config: Pick<Config, 'loginEmailVerificationRequired' | 'loginPhoneVerificationRequired'>,
  _instanceId: string,
  _orgId: string,
): Promise<ContactVerificationPolicy> {
  return { emailVerificationRequired: config.loginEmailVerificationRequired, phoneVerificationRequired: config.loginPhoneVerificationRequired };
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
export async function pendingVerificationOf(
  deps: { readonly actors: ActorSystem; readonly config: Pick<Config, 'loginEmailVerificationRequired' | 'loginPhoneVerificationRequired'> },
  instanceId: string,
  userId: string,
): Promise<ContactChannel | undefined> {
  const user = (await deps.actors.readRecord(instanceId, userKind, userId))?.state;
  if (user === undefined) return undefined;
  return verificationRequiredFor(await readContactVerificationPolicy(deps.actors, deps.config, instanceId, user.orgId), user);
}
