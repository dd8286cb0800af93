/**
 * RSA 2048 key pairs for private_key_jwt applications, generated off the event loop. The
 * private key leaves as PEM (PKCS#1, `BEGIN RSA PRIVATE KEY`, as the reference's key files);
 * only the public key is kept, as a JWK.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface GeneratedRsaKey {
  readonly privateKeyPem: string;
  readonly publicJwk: { readonly kty: 'RSA'; readonly n: string; readonly e: string };
}

export async function generateRsaSigningKey(): Promise<GeneratedRsaKey> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.n === undefined || jwk.e === undefined) throw new Error('RSA public key export lacks n or e');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicJwk: { kty: 'RSA', n: jwk.n, e: jwk.e },
  };
}
