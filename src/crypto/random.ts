/** Unguessable generated secrets (client secrets, PATs, signing keys): 256 bits, base64url. */
import { randomBytes } from 'node:crypto';

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
