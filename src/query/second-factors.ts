/**
 * The second factors a human user has (TOTP once verified, OTP by email, OTP by SMS) and whether
 * a session checked one. A session of such a user that checked none — a password-only session
 * from the sessions API, or one from before the enrolment — is not fully authenticated: the
 * login UI and OIDC never reuse it, and the sessions API says so (`secondFactorMissing`).
 */
import { secondFactorCheckedAt, type Session, type User } from '../../actors/index.js';

export type SecondFactor = 'totp' | 'sms' | 'email';

/** The user's second factors in the order the login UI offers them first (TOTP, SMS, email). */
export function secondFactorsOf(user: User | undefined): SecondFactor[] {
  if (user?.type !== 'human') return [];
  const factors: SecondFactor[] = [];
  if (user.totp?.verified === true) factors.push('totp');
  if (user.otpSms !== undefined) factors.push('sms');
  if (user.otpEmail !== undefined) factors.push('email');
  return factors;
}

/** True when the login UI asks this user for a second factor after the first one. */
export function requiresSecondFactor(user: User | undefined): boolean {
  return secondFactorsOf(user).length > 0;
}

/** An active user with a second factor whose session never checked one. */
export function lacksSecondFactor(user: User, session: Session): boolean {
  return user.state === 'active' && requiresSecondFactor(user) && secondFactorCheckedAt(session) === 0;
}
