/** Unguessable generated secrets (client secrets, PATs, signing keys): 256 bits, base64url. */
import { randomBytes, randomFillSync } from 'node:crypto';

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Alphanumeric secret of a given length (e.g. target signing keys: 36 characters of [A-Za-z0-9]). */
export function randomAlphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out.push(alphabet[byte % 62]!); // 248 = 4 × 62: no modulo bias
    }
  }
  return out.join('');
}

/**
 * Random base64url text of `bytes` random bytes for the hot paths (token values, grant and token
 * ids): taken from a pool refilled by one randomFillSync per 4 KiB instead of one per id, each
 * byte handed out once. Same CSPRNG as randomBytes; no Buffer per call.
 */
export function pooledRandomBase64url(bytes: number): string {
  if (bytes > POOL_BYTES) return randomBytes(bytes).toString('base64url');
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += bytes;
  return pool.toString('base64url', start, poolOffset);
}

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let poolOffset = POOL_BYTES;
