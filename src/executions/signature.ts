/**
 * The `Platform-Signature` header on every call to a target (reference facts §3.1):
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>." + body)>`, one `v1=` per signing key
 * while a rotated key is in its grace period. Receivers reject timestamps older than 300 s.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Platform-Signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signatureHeader(body: string, keys: readonly string[], unixSeconds: number): string {
  const parts = [`t=${unixSeconds}`, ...keys.map((key) => `v1=${hmacHex(key, unixSeconds, body)}`)];
  return parts.join(',');
}

/** The receiver's check (used by the tests; docs/executions.md shows the same for receivers). */
export function verifySignature(header: string, body: string, key: string, nowSeconds: number): boolean {
  const fields = header.split(',').map((part) => part.trim().split('='));
  const t = Number(fields.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(hmacHex(key, t, body), 'hex');
  return fields
    .filter(([name]) => name === 'v1')
    .some(([, value]) => {
      const given = Buffer.from(value ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

function hmacHex(key: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', key).update(`${unixSeconds}.`).update(body).digest('hex');
}
