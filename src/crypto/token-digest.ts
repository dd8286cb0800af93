/** The stored form of a bearer secret (PATs, session tokens, client secrets): SHA-256, base64url. */
import { createHash } from 'node:crypto';

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
