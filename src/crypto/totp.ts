/**
 * TOTP (RFC 6238) through the otpauth library: SHA-1, 6 digits, 30-second steps (what
 * authenticator apps assume from an otpauth:// URI). A code is accepted for the current step
 * and one step either side (clock drift, RFC 6238 §5.2); the caller learns which step matched
 * so the user's last accepted step can refuse a replay.
 */
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
const WINDOW = 1;
/** 160-bit secrets (RFC 4226 §4 recommends 160 bits). */
const SECRET_BYTES = 20;

/** Exactly six decimal digits. */
export const TOTP_CODE = /^[0-9]{6}$/;

/** A new random secret in base32 (no padding). */
export function generateTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

function totpOf(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S });
}

/** The otpauth:// key URI an authenticator app imports (QR code content). */
export function totpUri(secret: string, issuer: string, accountName: string): string {
  return totpOf(secret, issuer, accountName).toString();
}

/** The time step (RFC 6238 T) a code matches at `now` (epoch ms), or undefined. */
export function matchTotp(secret: string, code: string, now: number): number | undefined {
  if (!TOTP_CODE.test(code)) return undefined;
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

/** Recovery codes: 16 base32 characters (80 bits) shown as four groups, e.g. `k7qd-2mxa-p4rt-9bzn`. */
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
export const RECOVERY_CODE = /^[a-z2-7]{16}$/;

export function generateRecoveryCode(): string {
  const chars = [...randomBytes(16)].map((b) => RECOVERY_ALPHABET[b & 31]!); // 32 symbols: no modulo bias
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

/** A typed recovery code in its canonical form (case, dashes and spaces ignored), or undefined if it cannot be one. */
export function normalizeRecoveryCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toLowerCase();
  return RECOVERY_CODE.test(code) ? code : undefined;
}
