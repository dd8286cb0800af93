/**
 * Protocol token state in the store's TTL tables (design §5: no domain events). Opaque access
 * and refresh tokens are random 256-bit values stored under their SHA-256 digest (a stolen
 * store yields no usable token); revoked grants and revoked JWT ids are rows that live until
 * the tokens they stop would have expired. Every token carries its grant id: the grant is the
 * token family (RFC 9700 §4.14.2) — a code or exchange and every refresh after it.
 *
 * Refresh-token reuse: a rotated refresh token leaves a small "rotated" row (its grant, client
 * and the grant's end) under the same digest for the rest of its own lifetime. Only a refused
 * refresh looks at it; when it is there, the token was used twice and the whole grant is
 * revoked (the `g:` row every token check already reads), so the hot paths gain no read.
 */
import { hash } from 'node:crypto';
import { pooledRandomBase64url } from '../../crypto/random.js';
import type { TtlStore } from '../../../actors/index.js';

const ACCESS = 'oidc.at';
const REFRESH = 'oidc.rt';
const REVOKED = 'oidc.revoked';
const ROTATED = 'oidc.rt.rotated';

/** The actor of an impersonated token (RFC 8693 §4.1). */
export interface ActorClaim {
  readonly iss?: string;
  readonly sub: string;
  readonly act?: ActorClaim;
}

/** What an access token stands for, opaque (stored) or JWT (decoded). Times in epoch seconds. */
export interface AccessTokenRecord {
  readonly format: 'opaque' | 'jwt';
  /** `<grantId>.<token id>`: the grant of a JWT is read from its jti. */
  readonly jti: string;
  readonly grantId: string;
  readonly sub: string;
  readonly clientId: string;
  readonly aud: readonly string[];
  readonly scope: readonly string[];
  readonly iat: number;
  readonly exp: number;
  readonly authTime?: number;
  readonly amr?: readonly string[];
  readonly sid?: string;
  readonly act?: ActorClaim;
}

/** A refresh token's grant: what a refresh re-issues, and the access token it replaces. */
export interface RefreshTokenRecord {
  readonly grantId: string;
  readonly sub: string;
  readonly clientId: string;
  readonly aud: readonly string[];
  readonly scope: readonly string[];
  readonly accessTokenFormat: 'opaque' | 'jwt';
  readonly authTime?: number;
  readonly amr?: readonly string[];
  /** The browser session of the grant (carried into refreshed tokens as `sid`). */
  readonly sid?: string;
  readonly act?: ActorClaim;
  /** Epoch ms: the absolute end of the grant (idle expiry is the row's own expiry). */
  readonly absoluteExpiresAt: number;
  /** Epoch ms: this token's own end (the row's expiry); absent on rows written before it was kept. */
  readonly expiresAt?: number;
  /** The current access token of the grant (stopped when the refresh token rotates). */
  readonly accessToken: { readonly format: 'opaque' | 'jwt'; readonly ref: string; readonly exp: number };
}

/** What is left of a rotated refresh token: enough to revoke its family when it comes back. */
export interface RotatedRefreshToken {
  readonly grantId: string;
  readonly clientId: string;
  readonly sub: string;
  readonly absoluteExpiresAt: number;
}

/** Characters of a token's issue-time prefix: seconds (TIME_CHARS; 36 bits: past the year 4000), then milliseconds (MS_CHARS). */
const TIME_CHARS = 6;
const MS_CHARS = 2;
/** base64url's characters in ASCII order, so that prefixes sort as the times they encode. */
const TIME_DIGITS = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
/** A token issued since the millisecond prefix: seconds and milliseconds, then 256 random bits in base64url. */
const MS_PREFIXED_LENGTH = TIME_CHARS + MS_CHARS + 43;
/** A token issued with the seconds prefix alone (before the milliseconds were added). */
const SECONDS_PREFIXED_LENGTH = TIME_CHARS + 43;
const PREFIX = /^[\w-]{6}/;
const MS_PREFIX = /^[\w-]{8}/;

/** The issue-time prefix of a token's seconds (its first TIME_CHARS characters): most significant first. */
export function timePrefix(seconds: number): string {
  let out = '';
  for (let shift = (TIME_CHARS - 1) * 6; shift >= 0; shift -= 6) out += TIME_DIGITS[Math.floor(seconds / 2 ** shift) % 64];
  return out;
}

/**
 * A new opaque token value: the issue time (`timePrefix` of its seconds, then its milliseconds
 * in two characters; 8 characters, not secret) then a random 256-bit value (base64url, 43
 * characters). The prefix puts the token's row key in issue order (`tokenKey`), so the rows a
 * group commit writes append at the right edge of the store's B-tree instead of landing on a
 * random leaf each: with seconds alone, the thousands of tokens of one second still landed at
 * random within that second's leaves (bench/README.md "Millisecond token prefix").
 */
export function newTokenValue(issuedAtMs: number): string {
  const ms = Math.floor(issuedAtMs) % 1000;
  return timePrefix(Math.floor(issuedAtMs / 1000)) + TIME_DIGITS[ms >> 6] + TIME_DIGITS[ms & 63] + pooledRandomBase64url(32);
}

export function newGrantId(): string {
  return pooledRandomBase64url(16);
}

export function newJti(grantId: string): string {
  return `${grantId}.${pooledRandomBase64url(12)}`;
}

export function grantOfJti(jti: string): string {
  const dot = jti.indexOf('.');
  return dot > 0 ? jti.slice(0, dot) : jti;
}

/**
 * The TTL row key of a token: its SHA-256 digest (base64url; one-shot, no Hash object per token),
 * after the token's issue-time prefix when it has one (8 characters; 6 for tokens issued with the
 * seconds prefix alone). A token issued before any prefix (43 characters) keeps its row under the
 * digest alone until it expires.
 */
export function tokenKey(token: string): string {
  const digest = hash('sha256', token, 'base64url');
  if (token.length === MS_PREFIXED_LENGTH && MS_PREFIX.test(token)) return token.slice(0, TIME_CHARS + MS_CHARS) + digest;
  return token.length === SECONDS_PREFIXED_LENGTH && PREFIX.test(token) ? token.slice(0, TIME_CHARS) + digest : digest;
}

export function createTokenStore(ttl: TtlStore) {
  return {
    putAccessToken: (instanceId: string, token: string, record: AccessTokenRecord) => ttl.put(instanceId, ACCESS, tokenKey(token), record, record.exp * 1000),
    async findAccessToken(instanceId: string, token: string): Promise<AccessTokenRecord | undefined> {
      return (await ttl.get(instanceId, ACCESS, tokenKey(token))) as AccessTokenRecord | undefined;
    },
    deleteAccessTokenByKey: (instanceId: string, key: string) => ttl.delete(instanceId, ACCESS, key),
    putRefreshToken: (instanceId: string, token: string, record: RefreshTokenRecord, expiresAt: number) => ttl.put(instanceId, REFRESH, tokenKey(token), record, expiresAt),
    /** Single use: at most one caller gets the row (rotation). */
    async takeRefreshToken(instanceId: string, token: string): Promise<RefreshTokenRecord | undefined> {
      return (await ttl.take(instanceId, REFRESH, tokenKey(token))) as RefreshTokenRecord | undefined;
    },
    /** Leaves the rotated marker of a taken refresh token until the token would have expired. */
    markRotated(instanceId: string, token: string, record: RefreshTokenRecord): Promise<void> {
      const rotated: RotatedRefreshToken = { grantId: record.grantId, clientId: record.clientId, sub: record.sub, absoluteExpiresAt: record.absoluteExpiresAt };
      return ttl.put(instanceId, ROTATED, tokenKey(token), rotated, record.expiresAt ?? record.absoluteExpiresAt);
    },
    async findRotatedRefreshToken(instanceId: string, token: string): Promise<RotatedRefreshToken | undefined> {
      return (await ttl.get(instanceId, ROTATED, tokenKey(token))) as RotatedRefreshToken | undefined;
    },
    async findRefreshToken(instanceId: string, token: string): Promise<RefreshTokenRecord | undefined> {
      return (await ttl.get(instanceId, REFRESH, tokenKey(token))) as RefreshTokenRecord | undefined;
    },
    deleteRefreshToken: (instanceId: string, token: string) => ttl.delete(instanceId, REFRESH, tokenKey(token)),
    revokeGrant: (instanceId: string, grantId: string, until: number) => ttl.put(instanceId, REVOKED, `g:${grantId}`, 1, until),
    revokeJti: (instanceId: string, jti: string, until: number) => ttl.put(instanceId, REVOKED, `j:${jti}`, 1, until),
    async isGrantRevoked(instanceId: string, grantId: string): Promise<boolean> {
      return (await ttl.get(instanceId, REVOKED, `g:${grantId}`)) !== undefined;
    },
    async isRevoked(instanceId: string, record: Pick<AccessTokenRecord, 'grantId' | 'jti'>): Promise<boolean> {
      const [grant, token] = await Promise.all([ttl.get(instanceId, REVOKED, `g:${record.grantId}`), ttl.get(instanceId, REVOKED, `j:${record.jti}`)]);
      return grant !== undefined || token !== undefined;
    },
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
