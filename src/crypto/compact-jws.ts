/**
 * Synchronous verification of our own compact JWTs (RFC 7515 §5.2, RFC 7519 §7.2) with
 * node:crypto and an already imported KeyObject. This is the userinfo / introspection hot path:
 * jose's jwtVerify goes through WebCrypto (a promise and a key conversion per call), which cost
 * about half of a userinfo request. Only what Tessera itself issues is accepted: a JSON header
 * with `alg` from the allow-list and a `kid`, no `crit` (we never set critical extensions), and
 * a JSON object payload. Third-party JWTs keep going through jose (src/crypto/jwt-bearer.ts).
 */
import { verify, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from '../../actors/index.js';

export interface JwsKey {
  readonly algorithm: SigningAlgorithm;
  readonly publicKey: KeyObject;
}

export interface JwsHeader {
  readonly alg: string;
  readonly kid: string;
  readonly typ?: string;
  readonly [name: string]: unknown;
}

export interface VerifiedCompactJws {
  readonly header: JwsHeader;
  readonly payload: Record<string, unknown>;
}

/** Why a token failed; the signer maps every reason to one `token.invalid` error. */
export class JwsError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'JwsError';
  }
}

/** Checks shape, header and signature; the key is looked up by the header's `kid` and must match its `alg`. */
export function verifyCompactJws(token: string, keyFor: (kid: string) => JwsKey | undefined): VerifiedCompactJws {
  const firstDot = token.indexOf('.');
  const secondDot = token.indexOf('.', firstDot + 1);
  if (firstDot <= 0 || secondDot <= firstDot + 1 || secondDot === token.length - 1 || token.indexOf('.', secondDot + 1) !== -1) {
    throw new JwsError('ERR_JWS_INVALID', 'not a compact JWS');
  }
  const header = parseJsonObject(token.slice(0, firstDot), 'header');
  if (typeof header.alg !== 'string' || typeof header.kid !== 'string') throw new JwsError('ERR_JWS_INVALID', 'header needs alg and kid');
  if (header.crit !== undefined) throw new JwsError('ERR_JOSE_NOT_SUPPORTED', 'critical header parameters are not supported');
  const key = keyFor(header.kid);
  // Algorithm confusion: the header's alg must be the one the key was made for.
  if (key === undefined || key.algorithm !== header.alg) throw new JwsError('ERR_JWKS_NO_MATCHING_KEY', 'no published key for this kid and alg');
  const signingInput = Buffer.from(token.slice(0, secondDot), 'latin1');
  const signature = Buffer.from(token.slice(secondDot + 1), 'base64url');
  if (!verifySignature(key, signingInput, signature)) throw new JwsError('ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'signature verification failed');
  const payload = parseJsonObject(token.slice(firstDot + 1, secondDot), 'payload');
  return { header: header as JwsHeader, payload };
}

function verifySignature(key: JwsKey, data: Buffer, signature: Buffer): boolean {
  switch (key.algorithm) {
    case 'ES256':
      return signature.length === 64 && verify('sha256', data, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    case 'RS256':
      return verify('sha256', data, key.publicKey, signature);
    case 'EdDSA':
      return verify(null, data, key.publicKey, signature);
  }
}

function parseJsonObject(segment: string, what: string): Record<string, unknown> {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) throw new JwsError('ERR_JWT_INVALID', `${what} is not base64url`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new JwsError('ERR_JWT_INVALID', `${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwsError('ERR_JWT_INVALID', `${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

export interface ClaimExpectations {
  /** Required `iss` value; undefined skips the check. */
  readonly issuer?: string;
  /** Epoch milliseconds. */
  readonly now: number;
  /** Seconds of leeway on exp / nbf (default 0). */
  readonly clockToleranceSec?: number;
  /** Claims that must be present. */
  readonly requiredClaims?: readonly string[];
}

/** RFC 7519 §4.1 checks: exp and nbf (with leeway), iat a number, iss exact, required claims present. */
export function checkClaims(payload: Record<string, unknown>, expect: ClaimExpectations): void {
  for (const name of expect.requiredClaims ?? []) {
    if (payload[name] === undefined) throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', `missing required "${name}" claim`);
  }
  const nowSec = Math.floor(expect.now / 1000);
  const tolerance = expect.clockToleranceSec ?? 0;
  const { exp, nbf, iat, iss } = payload;
  if (exp !== undefined) {
    if (typeof exp !== 'number') throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', '"exp" must be a number');
    if (exp <= nowSec - tolerance) throw new JwsError('ERR_JWT_EXPIRED', '"exp" claim timestamp check failed');
  }
  if (nbf !== undefined) {
    if (typeof nbf !== 'number') throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', '"nbf" must be a number');
    if (nbf > nowSec + tolerance) throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', '"nbf" claim timestamp check failed');
  }
  if (iat !== undefined && typeof iat !== 'number') throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', '"iat" must be a number');
  if (expect.issuer !== undefined && iss !== expect.issuer) throw new JwsError('ERR_JWT_CLAIM_VALIDATION_FAILED', 'unexpected "iss" claim value');
}
