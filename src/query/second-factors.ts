/**
 * The second factors a human user has (TOTP once verified, OTP by email, OTP by SMS, passkeys)
 * and whether a session checked one. A session of such a user that checked none — a
 * password-only session from the sessions API, or one from before the enrolment — is not fully
 * authenticated: the login UI and OIDC never reuse it, and the sessions API says so
 * (`secondFactorMissing`).
 */
import { secondFactorCheckedAt, type LoginSettings, type OtpMethod, type SecondFactorType, type Session, type User } from '../../actors/index.js';

export type SecondFactor = OtpMethod | 'passkey';

/** The login policy's name of each factor (`secondFactors`; `u2f`: a passkey as second factor). */
export const POLICY_NAME: Readonly<Record<SecondFactor, SecondFactorType>> = { totp: 'totp', sms: 'otp_sms', email: 'otp_email', passkey: 'u2f' };

/** The user's second factors in the order the login UI offers codes first (TOTP, SMS, email), then a passkey. */
export function secondFactorsOf(user: User | undefined): SecondFactor[] {
  if (user?.type !== 'human') return [];
  const factors: SecondFactor[] = [];
  if (user.totp?.verified === true) factors.push('totp');
  if (user.otpSms !== undefined) factors.push('sms');
  if (user.otpEmail !== undefined) factors.push('email');
  if ((user.passkeys ?? []).length > 0) factors.push('passkey');
  return factors;
}

/** The user's factors the code page asks a code for (TOTP, SMS, email): all but a passkey. */
export function codeFactorsOf(user: User | undefined): OtpMethod[] {
  return secondFactorsOf(user).filter((f): f is OtpMethod => f !== 'passkey');
}

/** True when the login UI asks this user for a second factor after the first one. */
export function requiresSecondFactor(user: User | undefined): boolean {
  return secondFactorsOf(user).length > 0;
}

/**
 * The login: the user's second factors the policy of the user's organization allows
 * (`secondFactors`). A user whose factors are all disallowed is treated as having none there:
 * enrolment when MFA is forced, else the first factor alone.
 */
export function allowedSecondFactorsOf(user: User | undefined, policy: Pick<LoginSettings, 'secondFactors'>): SecondFactor[] {
  return secondFactorsOf(user).filter((f) => policy.secondFactors.includes(POLICY_NAME[f]));
}

/** The allowed factors the code page asks a code for (TOTP, SMS, email). */
export function allowedCodeFactorsOf(user: User | undefined, policy: Pick<LoginSettings, 'secondFactors'>): OtpMethod[] {
  return allowedSecondFactorsOf(user, policy).filter((f): f is OtpMethod => f !== 'passkey');
}

/** True when the login asks this user for an allowed second factor after the first one. */
export function requiresAllowedSecondFactor(user: User | undefined, policy: Pick<LoginSettings, 'secondFactors'>): boolean {
  return allowedSecondFactorsOf(user, policy).length > 0;
}

/** An active user with a second factor whose session never checked one. */
export function lacksSecondFactor(user: User, session: Session): boolean {
  return user.state === 'active' && requiresSecondFactor(user) && secondFactorCheckedAt(session) === 0;
}

/** The login UI's reuse rule: an active user with an allowed second factor whose session never checked one. */
export function lacksAllowedSecondFactor(user: User, session: Session, policy: Pick<LoginSettings, 'secondFactors'>): boolean {
  return user.state === 'active' && requiresAllowedSecondFactor(user, policy) && secondFactorCheckedAt(session) === 0;
}
