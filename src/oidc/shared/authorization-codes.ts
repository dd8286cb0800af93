/**
 * Authorization codes (RFC 6749 §4.1.2, §10.5): random, single use, short-lived, bound to the
 * client, redirect URI, PKCE challenge, nonce, scope, user and session. Stored under their
 * SHA-256 digest. Redeeming takes the row atomically and leaves a "used" marker until the code
 * would have expired, so a replay is recognised and the tokens issued from it can be revoked
 * (RFC 6749 §4.1.2: "SHOULD revoke all tokens previously issued based on that code").
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TtlStore } from '../../../actors/index.js';

export const CODE_TABLE = 'authorization_codes';
export const USED_CODE_TABLE = 'authorization_codes_used';
export const CODE_LIFETIME_MS = 5 * 60_000;

export interface AuthorizationCodeGrant {
  readonly clientId: string;
  readonly redirectUri: string;
  /** S256 challenge (RFC 7636 §4.2); absent when the client used no PKCE. */
  readonly codeChallenge?: string;
  readonly nonce?: string;
  readonly scopes: readonly string[];
  readonly userId: string;
  readonly sessionId: string;
  /** Epoch ms of the authentication. */
  readonly authTime: number;
  readonly amr: readonly string[];
  readonly issuedAt: number;
  readonly expiresAt: number;
}

interface UsedCodeMarker {
  /** The grant id of the tokens issued from the code, once recorded. */
  readonly grantId?: string;
  readonly expiresAt: number;
}

export type RedeemedCode =
  | { readonly kind: 'valid'; readonly grant: AuthorizationCodeGrant }
  | { readonly kind: 'replayed'; readonly grantId: string | undefined }
  | { readonly kind: 'unknown' };

function digestOf(code: string): string {
  return createHash('sha256').update(code).digest('base64url');
}

/** Stores the grant and returns the code to hand to the client. */
export async function issueAuthorizationCode(ttl: TtlStore, instanceId: string, grant: Omit<AuthorizationCodeGrant, 'expiresAt'>): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = grant.issuedAt + CODE_LIFETIME_MS;
  await ttl.put(instanceId, CODE_TABLE, digestOf(code), { ...grant, expiresAt } satisfies AuthorizationCodeGrant, expiresAt);
  return code;
}

/** Takes the code (at most one caller gets it); a second redemption reports `replayed`. */
export async function redeemAuthorizationCode(ttl: TtlStore, instanceId: string, code: string, now: number): Promise<RedeemedCode> {
  if (code.length > 200) return { kind: 'unknown' };
  const digest = digestOf(code);
  const grant = (await ttl.take(instanceId, CODE_TABLE, digest)) as AuthorizationCodeGrant | undefined;
  if (grant !== undefined) {
    await ttl.put(instanceId, USED_CODE_TABLE, digest, { expiresAt: grant.expiresAt } satisfies UsedCodeMarker, grant.expiresAt);
    return grant.expiresAt > now ? { kind: 'valid', grant } : { kind: 'unknown' };
  }
  const used = (await ttl.get(instanceId, USED_CODE_TABLE, digest)) as UsedCodeMarker | undefined;
  return used === undefined ? { kind: 'unknown' } : { kind: 'replayed', grantId: used.grantId };
}

/** Remembers which grant the code's tokens belong to, for revocation on replay. */
export async function recordCodeGrant(ttl: TtlStore, instanceId: string, code: string, grantId: string, expiresAt: number): Promise<void> {
  await ttl.put(instanceId, USED_CODE_TABLE, digestOf(code), { grantId, expiresAt } satisfies UsedCodeMarker, expiresAt);
}
