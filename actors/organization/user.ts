/**
 * Users of an organization: humans (profile, email, phone, password hash, lockout counter)
 * and machines (service users: personal access tokens, JSON keys, client secret). Secrets
 * are never stored in plaintext: PATs and client secrets as SHA-256 digests (a PAT digest is
 * claimed under `user.pat`, so a bearer token finds its user in one lookup), passwords as
 * argon2id PHC strings, machine keys as public keys only.
 */
import { userEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { HumanProfilePayload, UserEvent } from './user-events.js';
import type { IdpLink } from './user-idp-link.js';

export type AccessTokenType = 'bearer' | 'jwt';
export type Gender = 'unspecified' | 'female' | 'male' | 'diverse';
export type UserLifecycle = 'active' | 'inactive' | 'locked';

/** Payload of `user.token.added`. */
export interface PersonalAccessToken {
  readonly id: string;
  readonly digest: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

export interface UserToken extends PersonalAccessToken {
  readonly createdAt: number;
}

export interface MachineKey {
  readonly id: string;
  /** SPKI PEM of the RSA public key; the private key was handed out once and never stored. */
  readonly publicKey: string;
  readonly expiresAt: number;
  readonly createdAt: number;
}

export interface UserMetadataEntry {
  readonly key: string;
  /** Standard base64 of the value bytes. */
  readonly value: string;
}

export type HumanProfile = HumanProfilePayload;

interface UserCommon {
  readonly orgId: string;
  readonly username: string;
  readonly state: UserLifecycle;
  /** Sorted by key. */
  readonly metadata: readonly UserMetadataEntry[];
  /** True when the username is also claimed under `user.username.instance`. */
  readonly usernameInstanceWide: boolean;
}

export interface HumanUser extends UserCommon {
  readonly type: 'human';
  readonly profile: HumanProfile;
  readonly email: { readonly address: string; readonly verified: boolean };
  readonly phone: { readonly number: string; readonly verified: boolean };
  /** argon2id PHC string; '' when none is set. Never returned by the API. */
  readonly passwordHash: string;
  readonly passwordChangeRequired: boolean;
  /** Epoch milliseconds of the last password change (0: never). */
  readonly passwordChangedAt: number;
  /** Failed password checks since the last success, unlock or password change. */
  readonly failedPasswordAttempts: number;
  /** Linked external identities (external login); absent on rows written before links existed. */
  readonly idpLinks?: readonly IdpLink[];
  /** The TOTP second factor; absent when none was enrolled (or it was removed). */
  readonly totp?: HumanTotp;
  /** Failed OTP checks since the last success, unlock or re-enrolment; absent = 0. */
  readonly failedOtpAttempts?: number;
  /** SHA-256 digests (base64url) of the unused recovery codes; absent = none. Removed with the TOTP. */
  readonly recoveryCodes?: readonly string[];
  /** OTP by email / by SMS (issue 14): enabled as second factors (absent: no), and each one's pending login code. */
  readonly otpEmail?: HumanOtpMessage;
  readonly otpSms?: HumanOtpMessage;
  /**
   * The pending code of an OTP by email / SMS set up during login (absent: none): its channel,
   * digest and expiry. Proving it adds that factor; adding the factor clears it.
   */
  readonly otpEnrolment?: { readonly channel: 'email' | 'sms'; readonly codeHash: string; readonly expiresAt: number };
  /** The pending email / phone verification codes: digest and expiry (absent: none). */
  readonly emailCode?: PendingCode;
  readonly phoneCode?: PendingCode;
  /** The pending password reset code: its SHA-256 digest and expiry (absent: none). */
  readonly passwordReset?: { readonly codeHash: string; readonly expiresAt: number };
  /** Registered passkeys (WebAuthn credentials); absent = none. Never exported. */
  readonly passkeys?: readonly HumanPasskey[];
}

/** Payload of `user.human.passkey.added`: a WebAuthn credential whose attestation was verified. */
export interface PasskeyCredential {
  /** The passkey's resource id (its registration id). */
  readonly id: string;
  readonly name: string;
  /** The WebAuthn credential id (base64url). */
  readonly credentialId: string;
  /** The COSE public key (base64url); a public key, so not sealed. */
  readonly publicKey: string;
  /** The authenticator's signature counter at registration. */
  readonly counter: number;
  /** Transport hints of the authenticator (`internal`, `usb`, `hybrid`, ...). */
  readonly transports: readonly string[];
}

export interface HumanPasskey extends PasskeyCredential {
  readonly createdAt: number;
  /** Epoch ms of the last accepted assertion (0: never used). */
  readonly lastUsedAt: number;
}

/** An OTP-by-message factor; `code` is the pending login code (digest and expiry), absent when none. */
export interface HumanOtpMessage {
  readonly code?: { readonly codeHash: string; readonly expiresAt: number };
}

/** A code sent by mail or SMS, recorded only as its digest. */
export interface PendingCode {
  readonly codeHash: string;
  readonly expiresAt: number;
}

export interface HumanTotp {
  /** The base32 secret sealed with the node's master key. Never returned by the API after enrolment. */
  readonly sealedSecret: string;
  /** True once a code proved the enrolment; only a verified TOTP is asked for at login. */
  readonly verified: boolean;
  /** The RFC 6238 time step of the last accepted code (0: none); a code of this step or earlier is refused. */
  readonly lastStep: number;
}

export interface MachineUser extends UserCommon {
  readonly type: 'machine';
  readonly name: string;
  readonly description: string;
  readonly accessTokenType: AccessTokenType;
  readonly tokens: readonly UserToken[];
  readonly keys: readonly MachineKey[];
  /** SHA-256 (base64url) of the client secret; '' when none is set. */
  readonly secretDigest: string;
}

export type User = HumanUser | MachineUser;

export const USERNAME_SCOPE = 'user.username';
export const USERNAME_INSTANCE_SCOPE = 'user.username.instance';
export const PAT_SCOPE = 'user.pat';

/** Claim value of a username within its organization. */
export function usernameKey(orgId: string, username: string): string {
  return `${orgId}:${username.toLowerCase()}`;
}

/** Claim value of a username instance-wide. */
export function instanceUsernameKey(username: string): string {
  return username.toLowerCase();
}

export const userKind: AggregateKind<User, UserEvent, 'user'> = {
  type: 'user',
  table: 'users',
  events: userEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'user.human.added': {
        const { usernameInstanceWide, ...rest } = e.payload;
        return {
          ...rest,
          type: 'human',
          state: 'active',
          metadata: [],
          usernameInstanceWide: usernameInstanceWide ?? false,
          passwordChangedAt: e.payload.passwordHash === '' ? 0 : e.createdAt,
          failedPasswordAttempts: 0,
        };
      }
      case 'user.machine.added': {
        const { usernameInstanceWide, ...rest } = e.payload;
        return {
          ...rest,
          type: 'machine',
          state: 'active',
          metadata: [],
          usernameInstanceWide: usernameInstanceWide ?? false,
          tokens: [],
          keys: [],
          secretDigest: '',
        };
      }
      case 'user.removed':
        return undefined;
      default:
        return state && evolveExisting(state, e, e.createdAt);
    }
  },
};

function evolveExisting(state: User, e: UserEvent, at: number): User {
  switch (e.type) {
    case 'user.username.changed':
      return { ...state, username: e.payload.username, usernameInstanceWide: e.payload.usernameInstanceWide ?? false };
    case 'user.locked':
      return { ...state, state: 'locked' };
    case 'user.unlocked':
      return state.type === 'human' ? { ...state, state: 'active', failedPasswordAttempts: 0, failedOtpAttempts: 0 } : { ...state, state: 'active' };
    case 'user.deactivated':
      return { ...state, state: 'inactive' };
    case 'user.reactivated':
      return { ...state, state: 'active' };
    case 'user.metadata.set':
      return { ...state, metadata: [...state.metadata.filter((m) => m.key !== e.payload.key), e.payload].sort(byKey) };
    case 'user.metadata.removed':
      return { ...state, metadata: state.metadata.filter((m) => m.key !== e.payload.key) };
    default:
      return state.type === 'human' ? evolveHuman(state, e, at) : evolveMachine(state, e, at);
  }
}

function evolveHuman(state: HumanUser, e: UserEvent, at: number): HumanUser {
  switch (e.type) {
    case 'user.human.changed':
      return { ...state, profile: { ...state.profile, ...e.payload } };
    case 'user.human.email.changed':
    case 'user.human.email.verified':
    case 'user.human.phone.changed':
    case 'user.human.phone.verified':
    case 'user.human.email.code.added':
    case 'user.human.phone.code.added':
      return evolveContact(state, e);
    case 'user.human.password.code.added':
      return { ...state, passwordReset: { codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } };
    case 'user.human.password.changed': {
      const { passwordReset: _used, ...rest } = state;
      return {
        ...rest,
        passwordHash: e.payload.passwordHash,
        passwordChangeRequired: e.payload.changeRequired,
        passwordChangedAt: at,
        failedPasswordAttempts: 0,
      };
    }
    case 'user.human.password.check.succeeded':
      return { ...state, failedPasswordAttempts: 0 };
    case 'user.human.password.rehashed':
      return { ...state, passwordHash: e.payload.passwordHash };
    case 'user.human.password.check.failed':
      return { ...state, failedPasswordAttempts: state.failedPasswordAttempts + 1 };
    case 'user.human.mfa.otp.added':
      return { ...state, totp: { sealedSecret: e.payload.sealedSecret, verified: false, lastStep: 0 }, failedOtpAttempts: 0 };
    case 'user.human.mfa.otp.verified':
      return state.totp === undefined ? state : { ...state, totp: { ...state.totp, verified: true, lastStep: e.payload.step } };
    case 'user.human.mfa.otp.removed': {
      const { totp: _removed, recoveryCodes: _codes, ...rest } = state;
      return { ...rest, failedOtpAttempts: 0 };
    }
    case 'user.human.mfa.recovery.codes.generated':
      return { ...state, recoveryCodes: [...e.payload.digests] };
    case 'user.human.mfa.recovery.code.used':
      return { ...state, recoveryCodes: (state.recoveryCodes ?? []).filter((d) => d !== e.payload.digest), failedOtpAttempts: 0 };
    case 'user.human.mfa.otp.check.succeeded':
      return state.totp === undefined ? state : { ...state, totp: { ...state.totp, lastStep: e.payload.step }, failedOtpAttempts: 0 };
    case 'user.human.mfa.otp.check.failed':
      return { ...state, failedOtpAttempts: (state.failedOtpAttempts ?? 0) + 1 };
    case 'user.human.otp.email.added':
      return { ...withoutEnrolment(state, 'email'), otpEmail: {} };
    case 'user.human.otp.sms.added':
      return { ...withoutEnrolment(state, 'sms'), otpSms: {} };
    case 'user.human.otp.enrolment.code.added':
      return { ...state, otpEnrolment: { channel: e.payload.channel, codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } };
    case 'user.human.otp.email.removed': {
      const { otpEmail: _removed, ...rest } = state;
      return rest;
    }
    case 'user.human.otp.sms.removed': {
      const { otpSms: _removed, ...rest } = state;
      return rest;
    }
    case 'user.human.otp.email.code.added':
      return state.otpEmail === undefined ? state : { ...state, otpEmail: { code: { codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } } };
    case 'user.human.otp.sms.code.added':
      return state.otpSms === undefined ? state : { ...state, otpSms: { code: { codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } } };
    case 'user.human.otp.email.check.succeeded':
      return state.otpEmail === undefined ? state : { ...state, otpEmail: {}, failedOtpAttempts: 0 };
    case 'user.human.otp.sms.check.succeeded':
      return state.otpSms === undefined ? state : { ...state, otpSms: {}, failedOtpAttempts: 0 };
    case 'user.human.otp.email.check.failed':
    case 'user.human.otp.sms.check.failed':
      return { ...state, failedOtpAttempts: (state.failedOtpAttempts ?? 0) + 1 };
    case 'user.human.passkey.added':
      return { ...state, passkeys: [...(state.passkeys ?? []), { ...e.payload, transports: [...e.payload.transports], createdAt: at, lastUsedAt: 0 }] };
    case 'user.human.passkey.used':
      return { ...state, passkeys: (state.passkeys ?? []).map((p) => (p.id === e.payload.id ? { ...p, counter: e.payload.counter, lastUsedAt: at } : p)) };
    case 'user.human.passkey.removed':
      return { ...state, passkeys: (state.passkeys ?? []).filter((p) => p.id !== e.payload.id) };
    case 'user.idp.link.added':
      return { ...state, idpLinks: [...(state.idpLinks ?? []), { ...e.payload }] };
    case 'user.idp.link.removed':
      return { ...state, idpLinks: (state.idpLinks ?? []).filter((l) => l.idpId !== e.payload.idpId || l.externalUserId !== e.payload.externalUserId) };
    default:
      return state;
  }
}

/** The state without the pending OTP enrolment code of `channel` (a code of the other channel stays). */
function withoutEnrolment(state: HumanUser, channel: 'email' | 'sms'): HumanUser {
  if (state.otpEnrolment?.channel !== channel) return state;
  const { otpEnrolment: _done, ...rest } = state;
  return rest;
}

/** Email and phone: a change or a verification clears the pending verification code. */
function evolveContact(state: HumanUser, e: UserEvent): HumanUser {
  const { emailCode, phoneCode, ...rest } = state;
  const keepEmail = emailCode === undefined ? {} : { emailCode };
  const keepPhone = phoneCode === undefined ? {} : { phoneCode };
  switch (e.type) {
    case 'user.human.email.changed':
      return { ...rest, ...keepPhone, email: { ...e.payload } };
    case 'user.human.email.verified':
      return { ...rest, ...keepPhone, email: { ...state.email, verified: true } };
    case 'user.human.phone.changed':
      return { ...rest, ...keepEmail, phone: { ...e.payload } };
    case 'user.human.phone.verified':
      return { ...rest, ...keepEmail, phone: { ...state.phone, verified: true } };
    case 'user.human.email.code.added':
      return { ...state, emailCode: { codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } };
    case 'user.human.phone.code.added':
      return { ...state, phoneCode: { codeHash: e.payload.codeHash, expiresAt: e.payload.expiresAt } };
    default:
      return state;
  }
}

function evolveMachine(state: MachineUser, e: UserEvent, at: number): MachineUser {
  switch (e.type) {
    case 'user.machine.changed':
      return { ...state, ...e.payload };
    case 'user.token.added':
      return { ...state, tokens: [...state.tokens, { ...e.payload, createdAt: at }] };
    case 'user.token.removed':
      return { ...state, tokens: state.tokens.filter((t) => t.id !== e.payload.id) };
    case 'user.machine.key.added':
      return { ...state, keys: [...state.keys, { ...e.payload, createdAt: at }] };
    case 'user.machine.key.removed':
      return { ...state, keys: state.keys.filter((k) => k.id !== e.payload.id) };
    case 'user.machine.secret.set':
      return { ...state, secretDigest: e.payload.digest };
    case 'user.machine.secret.removed':
      return { ...state, secretDigest: '' };
    default:
      return state;
  }
}

function byKey(a: UserMetadataEntry, b: UserMetadataEntry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Display name of any user: the human's display name, the machine's name. */
export function displayNameOf(user: User): string {
  return user.type === 'human' ? user.profile.displayName : user.name;
}
