/**
 * The events of the user aggregate. Events are facts: a new shape gets a new event type.
 * `user.machine.added`, `user.token.added/removed` and `user.removed` are the first slice's;
 * `usernameInstanceWide` was added later as an optional flag (absent in older events = false).
 */
import type { AccessTokenType, Gender, PasskeyCredential, PersonalAccessToken } from './user.js';
import type { IdpLink } from './user-idp-link.js';

export interface HumanProfilePayload {
  readonly givenName: string;
  readonly familyName: string;
  readonly displayName: string;
  readonly nickname: string;
  readonly preferredLanguage: string;
  readonly gender: Gender;
}

export interface HumanAddedPayload {
  readonly orgId: string;
  readonly username: string;
  readonly profile: HumanProfilePayload;
  readonly email: { readonly address: string; readonly verified: boolean };
  readonly phone: { readonly number: string; readonly verified: boolean };
  /** PHC string (argon2id); '' when the user has no password yet. */
  readonly passwordHash: string;
  readonly passwordChangeRequired: boolean;
  readonly usernameInstanceWide?: boolean;
}

export interface MachineAddedPayload {
  readonly orgId: string;
  readonly username: string;
  readonly name: string;
  readonly description: string;
  readonly accessTokenType: AccessTokenType;
  readonly usernameInstanceWide?: boolean;
}

/** A login code of OTP by email / SMS: its digest (bound to the user), expiry and the outbox message carrying it. */
export interface OtpCodePayload {
  readonly codeHash: string;
  readonly expiresAt: number;
  readonly messageId: string;
}

export type UserEvent =
  | { type: 'user.human.added'; payload: HumanAddedPayload }
  | { type: 'user.human.changed'; payload: Partial<HumanProfilePayload> }
  | { type: 'user.human.email.changed'; payload: { address: string; verified: boolean } }
  | { type: 'user.human.email.verified'; payload: Record<string, never> }
  | { type: 'user.human.phone.changed'; payload: { number: string; verified: boolean } }
  | { type: 'user.human.phone.verified'; payload: Record<string, never> }
  | { type: 'user.human.password.changed'; payload: { passwordHash: string; changeRequired: boolean } }
  | { type: 'user.human.password.check.succeeded'; payload: Record<string, never> }
  /** The same password under a stronger hash (an imported bcrypt hash after a good login). */
  | { type: 'user.human.password.rehashed'; payload: { passwordHash: string } }
  | { type: 'user.human.password.check.failed'; payload: Record<string, never> }
  /**
   * TOTP (RFC 6238) second factor: enrolment started with a new secret (sealed with the node's
   * master key; replaces an unverified one), proven with a first code, removed; checks at login.
   * A succeeded check records the time step of the accepted code, so it cannot be used again.
   */
  | { type: 'user.human.mfa.otp.added'; payload: { sealedSecret: string } }
  | { type: 'user.human.mfa.otp.verified'; payload: { step: number } }
  | { type: 'user.human.mfa.otp.removed'; payload: Record<string, never> }
  | { type: 'user.human.mfa.otp.check.succeeded'; payload: { step: number } }
  | { type: 'user.human.mfa.otp.check.failed'; payload: Record<string, never> }
  /**
   * Recovery codes for a user with a verified TOTP: a new set (SHA-256 digests only; replaces the
   * previous set), and one code used at login instead of a TOTP code (it is gone afterwards).
   */
  | { type: 'user.human.mfa.recovery.codes.generated'; payload: { digests: readonly string[] } }
  | { type: 'user.human.mfa.recovery.code.used'; payload: { digest: string } }
  /**
   * A password reset code was sent (issue 14): only its SHA-256 digest is recorded, with its
   * expiry; the message carrying it is queued in the same append (outbox-message.ts). A new
   * code replaces the previous one; a password change (the reset itself) clears it.
   */
  | { type: 'user.human.password.code.added'; payload: { codeHash: string; expiresAt: number; channel: 'mail' | 'sms'; messageId: string } }
  /**
   * OTP by email / by SMS as second factors (issue 14): added for a verified address / number,
   * removed; a login code sent (its SHA-256 digest and expiry only; the message carrying it is
   * queued in the same append); a login's check of that code (success clears it: single use;
   * a failure counts towards `maxOtpAttempts`).
   */
  | { type: 'user.human.otp.email.added'; payload: Record<string, never> }
  | { type: 'user.human.otp.email.removed'; payload: Record<string, never> }
  | { type: 'user.human.otp.email.code.added'; payload: OtpCodePayload }
  | { type: 'user.human.otp.enrolment.code.added'; payload: OtpCodePayload & { readonly channel: 'email' | 'sms' } }
  | { type: 'user.human.otp.email.check.succeeded'; payload: Record<string, never> }
  | { type: 'user.human.otp.email.check.failed'; payload: Record<string, never> }
  | { type: 'user.human.otp.sms.added'; payload: Record<string, never> }
  | { type: 'user.human.otp.sms.removed'; payload: Record<string, never> }
  | { type: 'user.human.otp.sms.code.added'; payload: OtpCodePayload }
  | { type: 'user.human.otp.sms.check.succeeded'; payload: Record<string, never> }
  | { type: 'user.human.otp.sms.check.failed'; payload: Record<string, never> }
  /**
   * An email / phone verification code was sent (issue 14): only its SHA-256 digest (bound to
   * the user and the address) and expiry are recorded; the message carrying it is queued in the
   * same append. A newer code replaces it; a change of the address or its verification clears it.
   */
  | { type: 'user.human.email.code.added'; payload: { codeHash: string; expiresAt: number; messageId: string } }
  | { type: 'user.human.phone.code.added'; payload: { codeHash: string; expiresAt: number; messageId: string } }
  /**
   * Passkeys (WebAuthn, issue 14): a credential whose attestation was verified (public key only),
   * an accepted assertion (the new signature counter: a later one must be higher), removal.
   */
  | { type: 'user.human.passkey.added'; payload: PasskeyCredential }
  | { type: 'user.human.passkey.used'; payload: { id: string; counter: number } }
  | { type: 'user.human.passkey.removed'; payload: { id: string } }
  | { type: 'user.machine.added'; payload: MachineAddedPayload }
  | { type: 'user.machine.changed'; payload: { name?: string; description?: string; accessTokenType?: AccessTokenType } }
  | { type: 'user.machine.key.added'; payload: { id: string; publicKey: string; expiresAt: number } }
  | { type: 'user.machine.key.removed'; payload: { id: string } }
  | { type: 'user.machine.secret.set'; payload: { digest: string } }
  | { type: 'user.machine.secret.removed'; payload: Record<string, never> }
  | { type: 'user.token.added'; payload: PersonalAccessToken }
  | { type: 'user.token.removed'; payload: { id: string } }
  | { type: 'user.username.changed'; payload: { username: string; usernameInstanceWide?: boolean } }
  | { type: 'user.locked'; payload: Record<string, never> }
  | { type: 'user.unlocked'; payload: Record<string, never> }
  | { type: 'user.deactivated'; payload: Record<string, never> }
  | { type: 'user.reactivated'; payload: Record<string, never> }
  | { type: 'user.metadata.set'; payload: { key: string; value: string } }
  | { type: 'user.metadata.removed'; payload: { key: string } }
  /** A human user linked to / unlinked from an external identity (external login). */
  | { type: 'user.idp.link.added'; payload: IdpLink }
  | { type: 'user.idp.link.removed'; payload: { idpId: string; externalUserId: string } }
  /** Another user obtained tokens in this user's name (token exchange with an actor token). */
  | { type: 'user.impersonated'; payload: { actorUserId: string; clientId: string } }
  /**
   * A rotated refresh token of this user was presented again (RFC 9700 §4.14.2): the grant it
   * came from (every refresh and access token of that family) was revoked.
   */
  | { type: 'user.refresh.token.reused'; payload: { clientId: string; grantId: string } }
  | { type: 'user.removed'; payload: Record<string, never> };

export type UserEventType = UserEvent['type'];
