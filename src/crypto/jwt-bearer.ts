/**
 * Verifies a JWT signed by a known public key (system users, RFC 7523-style bearer). Explicit
 * algorithm allow-list; `exp` is required and the token may live at most `maxLifetimeSec`
 * (exp − iat, or exp − now without iat); clock tolerance applies to exp, nbf and iat.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify, type JWTPayload } from 'jose';

export const BEARER_JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;

export interface BearerJwtExpectations {
  readonly issuer: string;
  readonly subject: string;
  /** The token's `aud` must contain one of these. */
  readonly audiences: readonly string[];
  /** Epoch milliseconds. */
  readonly now: number;
  readonly clockToleranceSec: number;
  readonly maxLifetimeSec: number;
}

export type BearerJwtResult = { readonly ok: true; readonly payload: JWTPayload } | { readonly ok: false; readonly reason: string };

/** A public key from PEM (SPKI); throws on malformed input. */
export function importPublicKeyPem(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** True when the token has the compact JWS shape (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** The unverified `iss` of a compact JWT (to pick the verification key), or undefined. */
export function peekIssuer(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

export async function verifyBearerJwt(token: string, key: KeyObject, expect: BearerJwtExpectations): Promise<BearerJwtResult> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [...BEARER_JWT_ALGORITHMS],
      issuer: expect.issuer,
      subject: expect.subject,
      audience: [...expect.audiences],
      clockTolerance: expect.clockToleranceSec,
      currentDate: new Date(expect.now),
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'invalid token' };
  }
  const nowSec = expect.now / 1000;
  const exp = payload.exp ?? 0; // required above
  if (payload.iat !== undefined && payload.iat > nowSec + expect.clockToleranceSec) return { ok: false, reason: 'iat is in the future' };
  const lifetime = exp - (payload.iat ?? nowSec);
  if (lifetime > expect.maxLifetimeSec + expect.clockToleranceSec) return { ok: false, reason: 'the token lives longer than allowed' };
  return { ok: true, payload };
}
