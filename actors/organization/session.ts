/**
 * Sessions: a user's authentication state, built up by checks (user, password, personal
 * access token) — the amr source of the login UI and OIDC. A session belongs to its user's
 * organization (permissions, tombstones) and runs on that org's actor. Its random token is
 * handed out once; only the SHA-256 digest is stored and claimed under `session.token`, so a
 * cookie or bearer finds the session in one lookup. A session past `expiresAt` is gone at
 * read time; terminating removes it (and releases the token digest).
 */
import { sessionEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';

export const SESSION_TOKEN_SCOPE = 'session.token';

/** Default and maximum lifetime of a session (epoch-millisecond durations). */
export const DEFAULT_SESSION_LIFETIME_MS = 24 * 3_600_000;
export const MAX_SESSION_LIFETIME_MS = 366 * 24 * 3_600_000;

/** Metadata entries a session may hold. */
export const MAX_SESSION_METADATA = 50;

export interface SessionUserAgent {
  readonly userAgent: string;
  readonly ip: string;
}

export interface Session {
  readonly orgId: string;
  readonly userId: string;
  /** SHA-256 (base64url) of the session token. Never returned by the API. */
  readonly tokenDigest: string;
  /** Epoch milliseconds; the session is gone after this instant. */
  readonly expiresAt: number;
  readonly userAgent: SessionUserAgent;
  /** Epoch milliseconds of the last successful check of each factor (0: never checked). */
  readonly userCheckedAt: number;
  readonly passwordCheckedAt: number;
  readonly patCheckedAt: number;
  /** Epoch ms of the last login through an external IDP, and that IDP (absent: never). */
  readonly idpCheckedAt?: number;
  readonly idpId?: string;
  /** Epoch ms of the last TOTP check (absent: never). */
  readonly totpCheckedAt?: number;
  /** Epoch ms of the last accepted OTP by email / by SMS (absent: never). */
  readonly otpEmailCheckedAt?: number;
  readonly otpSmsCheckedAt?: number;
  /** Epoch ms of the last passkey (WebAuthn) check (absent: never), and whether it verified the user. */
  readonly webAuthNCheckedAt?: number;
  readonly webAuthNUserVerified?: boolean;
  /**
   * False when the login policy did not count this user-verified passkey as multi-factor
   * (`multiFactors` without `passkey`): it is then one factor. Absent: counted (as before).
   */
  readonly webAuthNMultiFactor?: boolean;
  /** Sorted by key. */
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
}

export type SessionEvent =
  | { type: 'session.added'; payload: { userAgent: SessionUserAgent } }
  | { type: 'session.user.checked'; payload: { userId: string } }
  | { type: 'session.password.checked'; payload: Record<string, never> }
  | { type: 'session.pat.checked'; payload: { tokenId: string } }
  /** The user logged in through an external IDP linked to it (login UI external login). */
  | { type: 'session.idp.checked'; payload: { idpId: string } }
  /** The user's TOTP code was accepted (login UI second step; checked and recorded on the user). */
  | { type: 'session.totp.checked'; payload: Record<string, never> }
  /** A login code sent by email / SMS was accepted (login UI second step; checked and recorded on the user). */
  | { type: 'session.otp.email.checked'; payload: Record<string, never> }
  | { type: 'session.otp.sms.checked'; payload: Record<string, never> }
  /** A passkey assertion was accepted (login UI; checked and recorded on the user). */
  | { type: 'session.webAuthN.checked'; payload: { passkeyId: string; userVerified: boolean; multiFactor?: boolean } }
  | { type: 'session.token.set'; payload: { digest: string } }
  | { type: 'session.lifetime.set'; payload: { expiresAt: number } }
  | { type: 'session.metadata.set'; payload: { metadata: Record<string, string> } }
  | { type: 'session.terminated'; payload: Record<string, never> };

export type SessionEventType = SessionEvent['type'];

export const sessionKind: AggregateKind<Session, SessionEvent, 'session'> = {
  type: 'session',
  table: 'sessions',
  events: sessionEvents,
  evolve(state, e) {
    if (e.type === 'session.added') {
      return {
        orgId: e.owner.id,
        userId: '',
        tokenDigest: '',
        expiresAt: 0,
        userAgent: e.payload.userAgent,
        userCheckedAt: 0,
        passwordCheckedAt: 0,
        patCheckedAt: 0,
        metadata: [],
      };
    }
    if (state === undefined || e.type === 'session.terminated') return undefined;
    switch (e.type) {
      case 'session.user.checked':
        return { ...state, userId: e.payload.userId, userCheckedAt: e.createdAt };
      case 'session.password.checked':
        return { ...state, passwordCheckedAt: e.createdAt };
      case 'session.pat.checked':
        return { ...state, patCheckedAt: e.createdAt };
      case 'session.idp.checked':
        return { ...state, idpCheckedAt: e.createdAt, idpId: e.payload.idpId };
      case 'session.totp.checked':
        return { ...state, totpCheckedAt: e.createdAt };
      case 'session.otp.email.checked':
        return { ...state, otpEmailCheckedAt: e.createdAt };
      case 'session.otp.sms.checked':
        return { ...state, otpSmsCheckedAt: e.createdAt };
      case 'session.webAuthN.checked':
        return { ...state, webAuthNCheckedAt: e.createdAt, webAuthNUserVerified: e.payload.userVerified, webAuthNMultiFactor: e.payload.multiFactor };
      case 'session.token.set':
        return { ...state, tokenDigest: e.payload.digest };
      case 'session.lifetime.set':
        return { ...state, expiresAt: e.payload.expiresAt };
      case 'session.metadata.set':
        return { ...state, metadata: mergeMetadata(state.metadata, e.payload.metadata) };
      default:
        return state;
    }
  },
};

/** Sets (non-empty value) or removes (empty value) entries; the result is sorted by key. */
export function mergeMetadata(
  current: Session['metadata'],
  changes: Readonly<Record<string, string>>,
): { readonly key: string; readonly value: string }[] {
  const map = new Map(current.map((m) => [m.key, m.value]));
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') map.delete(key);
    else map.set(key, value);
  }
  return [...map.entries()].map(([key, value]) => ({ key, value })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** True while the session exists and has not expired. */
export function isSessionLive(record: AggregateRecord<Session> | undefined, now: number): record is AggregateRecord<Session> {
  return record !== undefined && record.state.expiresAt > now;
}

/**
 * Epoch ms of the session's last interactive authentication (password, an OTP, a passkey or
 * external IDP) — the login UI reuses only such sessions; 0 when it has neither.
 */
export function sessionAuthTime(session: Session): number {
  return Math.max(session.passwordCheckedAt, session.idpCheckedAt ?? 0, secondFactorCheckedAt(session));
}

/** Epoch ms of the session's last second-factor check (TOTP, OTP by email or SMS, passkey); 0 when none. */
export function secondFactorCheckedAt(session: Session): number {
  return Math.max(session.totpCheckedAt ?? 0, session.otpEmailCheckedAt ?? 0, session.otpSmsCheckedAt ?? 0, session.webAuthNCheckedAt ?? 0);
}

/**
 * The authentication methods the session's checks prove (OIDC `amr`, RFC 8176): `pwd` for a
 * password, `otp` for any one-time code (TOTP, by email, by SMS), `user` for a passkey (reference
 * facts: passkey or U2F), and `mfa` when two factors were checked — a password or an external IDP
 * login as the first, an OTP or a passkey as the second; a passkey that verified the user (PIN or
 * biometrics) counts as two (something held plus something known or inherent) unless the login
 * policy did not count it (`webAuthNMultiFactor: false`, multiFactors without `passkey`). An external IDP
 * login adds no value of its own: RFC 8176 has none for federated authentication.
 */
export function sessionAmr(session: Session): string[] {
  const amr: string[] = [];
  const password = session.passwordCheckedAt > 0;
  const first = password || (session.idpCheckedAt ?? 0) > 0;
  const otp = Math.max(session.totpCheckedAt ?? 0, session.otpEmailCheckedAt ?? 0, session.otpSmsCheckedAt ?? 0) > 0;
  const passkey = (session.webAuthNCheckedAt ?? 0) > 0;
  const factors = Number(first) + Number(otp) + (passkey ? (session.webAuthNUserVerified === true && session.webAuthNMultiFactor !== false ? 2 : 1) : 0);
  if (password) amr.push('pwd');
  if (otp) amr.push('otp');
  if (passkey) amr.push('user');
  if (factors >= 2) amr.push('mfa');
  if (session.patCheckedAt > 0) amr.push('pat');
  return amr;
}
