/**
 * The start-up warm-up of the token path (src/oidc/warm-up.ts): it runs the steps of a cold
 * instance's first token on a throwaway key — sealed and unsealed with the node's sealer, the
 * ring imported, a JWT signed — and what it signs is a valid ES256 JWS of that key.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SecretSealer } from '../../actors/index.js';
import { loadConfig } from '../../src/config/load.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { warmUpTokenPath } from '../../src/oidc/warm-up.js';

function countingSealer(): SecretSealer & { sealed: number; opened: number } {
  const inner = createSecretSealer(randomBytes(32));
  const sealer = {
    sealed: 0,
    opened: 0,
    seal(plaintext: string) {
      sealer.sealed += 1;
      return inner.seal(plaintext);
    },
    open(sealed: string) {
      sealer.opened += 1;
      return inner.open(sealed);
    },
  };
  return sealer;
}

function verifies(jwt: string, publicKey: ReturnType<typeof createPublicKey>): boolean {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  return verify('sha256', Buffer.from(`${header}.${payload}`, 'latin1'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

describe('warmUpTokenPath', () => {
  it('seals and opens a throwaway key with the node sealer and signs an ES256 JWT with it', async () => {
    const sealer = countingSealer();
    const { jwt, publicJwk } = await warmUpTokenPath(sealer, loadConfig({ env: {} }));
    expect(sealer.sealed).toBe(1);
    expect(sealer.opened).toBe(1);
    const header = JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(verifies(jwt, createPublicKey({ key: { ...publicJwk }, format: 'jwk' }))).toBe(true);
    // Control: another P-256 key does not verify it, so the check above is about this key.
    expect(verifies(jwt, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey)).toBe(false);
  });

  it('uses a new throwaway key each time', async () => {
    const sealer = countingSealer();
    const config = loadConfig({ env: {} });
    const first = await warmUpTokenPath(sealer, config);
    const second = await warmUpTokenPath(sealer, config);
    expect(second.publicJwk).not.toEqual(first.publicJwk);
  });
});
