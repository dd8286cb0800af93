/**
 * Start-up warm-up of the token path (issue 13): without it the node's very first token pays,
 * on top of a cold instance's activation, V8's lazy compilation of the key-ring import, the
 * request parsing and the rate limiter, and OpenSSL's first AES-GCM unsealing, JWK import and
 * P-256 signature (≈ 10 ms of CPU on a loaded machine instead of ≈ 1 ms). So a node, before
 * it listens, runs those steps once on throwaway objects: a P-256 pair generated off the event
 * loop and sealed with the node's sealer, its ring imported (`importKeyRing`, as a cold
 * instance's is), a JWT signed and verified with it, a token request's form and Basic
 * credentials parsed, and one event counted by a rate-limit set of its own. Nothing is stored
 * and nothing of the node's is touched: no instance, no cache, no counter; all is dropped after.
 */
import { createHash, sign } from 'node:crypto';
import type { SecretSealer } from '../../actors/index.js';
import { createRateLimits, type RateLimitConfig } from '../http/rate-limits.js';
import { isSecretValid, parseClientCredentials } from './shared/client-auth.js';
import { parseUrlEncoded } from './shared/form.js';
import { verifyCompactJws } from '../crypto/compact-jws.js';
import { encodedHeader, importKeyRing } from '../crypto/key-ring.js';
import { generateWebKey } from '../crypto/web-key-generator.js';

/** What the warm-up did: the JWT it signed with the throwaway key, and that key's public JWK. */
export interface WarmUpResult {
  readonly jwt: string;
  readonly publicJwk: Readonly<Record<string, unknown>>;
}

const WARM_UP = 'warm-up';

export async function warmUpTokenPath(sealer: SecretSealer, rateLimitConfig: RateLimitConfig): Promise<WarmUpResult> {
  const key = await generateWebKey('ES256');
  const ring = importKeyRing(
    { version: 1, keys: [{ kid: key.kid, algorithm: key.algorithm, state: 'active', publicJwk: key.publicJwk, sealedPrivateKey: sealer.seal(key.privateKeyPem) }] },
    sealer,
  );
  const active = ring.active!; // the ring above has one active key
  // A token request: its form, its Basic credentials (`warm-up:warm-up`), the secret's check.
  const params = parseUrlEncoded('grant_type=client_credentials&scope=openid');
  const credentials = parseClientCredentials(params, `Basic ${Buffer.from(`${WARM_UP}:${WARM_UP}`).toString('base64')}`);
  isSecretValid(createHash('sha256').update(WARM_UP).digest(), credentials.method === 'basic' ? credentials.secret : WARM_UP);
  await createRateLimits(rateLimitConfig, { loadInstanceLimits: async () => undefined }).consume(WARM_UP, 'client', WARM_UP);
  const seconds = Math.floor(Date.now() / 1000);
  const payload = { iss: `https://${WARM_UP}.invalid`, sub: WARM_UP, aud: [WARM_UP], iat: seconds, nbf: seconds, exp: seconds + 60, jti: WARM_UP, client_id: WARM_UP, scope: 'openid' };
  const signingInput = `${encodedHeader(active, 'JWT')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const jwt = `${signingInput}.${sign('sha256', Buffer.from(signingInput, 'latin1'), active.signWith).toString('base64url')}`;
  verifyCompactJws(jwt, (kid) => ring.verifyingKey(kid));
  return { jwt, publicJwk: { ...key.publicJwk } };
}
