/**
 * Whether a login must stop for an email / phone verification (issue 14): the one predicate the
 * login UI's verification step is driven by (contact-verification-gate.ts). The policy comes
 * from the node defaults TESSERA_LOGIN_EMAIL_VERIFICATION_REQUIRED / _PHONE_ until the login
 * settings carry `emailVerificationRequired` / `phoneVerificationRequired`.
 */
import type { ActorSystem, ContactChannel, User } from '../../actors/index.js';
import type { Config } from '../config/schema.js';

export interface ContactVerificationPolicy {
  readonly emailVerificationRequired: boolean;
  readonly phoneVerificationRequired: boolean;
}

/** The policy in force for an instance's logins. */
export async function readContactVerificationPolicy(
  _actors: ActorSystem,
  config: Pick<Config, 'loginEmailVerificationRequired' | 'loginPhoneVerificationRequired'>,
  _instanceId: string,
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
