/**
 * Generates signing key pairs for web keys: RSA 2048 (RS256), P-256 (ES256), Ed25519 (EdDSA),
 * off the event loop (node:crypto's callback form). The `kid` is the key's JWK thumbprint
 * (RFC 7638 §3), so it is derived from the public key and never collides by accident.
 */
import { createHash, generateKeyPair, type KeyObject } from 'node:crypto';
import type { NewWebKey, PublicJwk, SigningAlgorithm } from '../../actors/index.js';

/** A new key pair of `algorithm`, private key as PKCS#8 PEM (the caller seals it). */
export async function generateWebKey(algorithm: SigningAlgorithm): Promise<NewWebKey> {
  const { publicKey, privateKey } = await generatePair(algorithm);
  const publicJwk = toPublicJwk(publicKey);
  return {
    kid: jwkThumbprint(publicJwk),
    algorithm,
    publicJwk,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

function generatePair(algorithm: SigningAlgorithm): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) =>
      error === null ? resolve({ publicKey, privateKey }) : reject(error);
    switch (algorithm) {
      case 'RS256':
        generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done);
        return;
      case 'ES256':
        generateKeyPair('ec', { namedCurve: 'P-256' }, done);
        return;
      case 'EdDSA':
        generateKeyPair('ed25519', undefined, done);
        return;
    }
  });
}

/** The public JWK members of a key (no private members, no metadata). */
export function toPublicJwk(publicKey: KeyObject): PublicJwk {
  const jwk = publicKey.export({ format: 'jwk' });
  const pick = (name: 'crv' | 'x' | 'y' | 'n' | 'e') => (typeof jwk[name] === 'string' ? { [name]: jwk[name] } : {});
  return { kty: String(jwk.kty), ...pick('crv'), ...pick('x'), ...pick('y'), ...pick('n'), ...pick('e') };
}

/** RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order, base64url. */
export function jwkThumbprint(jwk: PublicJwk): string {
  const required =
    jwk.kty === 'RSA' ? { e: jwk.e, kty: jwk.kty, n: jwk.n } : jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(required)).digest('base64url');
}
