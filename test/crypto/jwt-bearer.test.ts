/** Bearer JWT verification: algorithms, issuer/subject/audience, expiry, lifetime, clock tolerance. */
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { looksLikeJwt, peekIssuer, verifyBearerJwt, type BearerJwtExpectations } from '../../src/crypto/jwt-bearer.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const nowSec = NOW / 1000;
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const expectations: BearerJwtExpectations = {
  issuer: 'ops',
  subject: 'ops',
  audiences: ['http://id.example:8080'],
  now: NOW,
  clockToleranceSec: 1,
  maxLifetimeSec: 3600,
};

function mint(claims: { iat?: number; exp?: number; aud?: string; sub?: string } = {}, alg = 'RS256', key: Parameters<SignJWT['sign']>[0] = rsa.privateKey): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg }).setIssuer('ops').setSubject(claims.sub ?? 'ops').setAudience(claims.aud ?? 'http://id.example:8080');
  if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(key);
}

describe('verifyBearerJwt', () => {
  it('accepts a well-formed RS256 token', async () => {
    const token = await mint({ iat: nowSec, exp: nowSec + 300 });
    expect(looksLikeJwt(token)).toBe(true);
    expect(peekIssuer(token)).toBe('ops');
    expect(await verifyBearerJwt(token, rsa.publicKey, expectations)).toMatchObject({ ok: true });
  });

  it.each([
    ['no exp', { iat: nowSec }],
    ['expired beyond the tolerance', { iat: nowSec - 600, exp: nowSec - 2 }],
    ['lifetime above one hour', { iat: nowSec, exp: nowSec + 3602 }],
    ['lifetime above one hour without iat', { exp: nowSec + 3700 }],
    ['iat in the future', { iat: nowSec + 5, exp: nowSec + 300 }],
    ['wrong audience', { iat: nowSec, exp: nowSec + 300, aud: 'http://other.example' }],
    ['wrong subject', { iat: nowSec, exp: nowSec + 300, sub: 'eve' }],
  ])('rejects %s', async (_label, claims) => {
    expect((await verifyBearerJwt(await mint(claims), rsa.publicKey, expectations)).ok).toBe(false);
  });

  it('tolerates one second of clock skew', async () => {
    expect((await verifyBearerJwt(await mint({ iat: nowSec + 1, exp: nowSec }), rsa.publicKey, expectations)).ok).toBe(true);
  });

  it('refuses algorithms outside the allow-list (HS256 with the key bytes, PS256)', async () => {
    const hs = await mint({ iat: nowSec, exp: nowSec + 60 }, 'HS256', new TextEncoder().encode('x'.repeat(32)));
    expect((await verifyBearerJwt(hs, rsa.publicKey, expectations)).ok).toBe(false);
    const ps = await mint({ iat: nowSec, exp: nowSec + 60 }, 'PS256');
    expect((await verifyBearerJwt(ps, rsa.publicKey, expectations)).ok).toBe(false);
  });

  it('does not take opaque tokens for JWTs', () => {
    expect(looksLikeJwt('AbC_-123')).toBe(false);
    expect(peekIssuer('a.b.c')).toBeUndefined();
  });
});
