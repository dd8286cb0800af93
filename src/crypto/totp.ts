/**
 * TOTP (RFC 6238) through the otpauth library: SHA-1, 6 digits, 30-second steps (what
 * authenticator apps assume from an otpauth:// URI). A code is accepted for the current step
 * and one step either side (clock drift, RFC 6238 §5.2); the caller learns which step matched
 * so the user's last accepted step can refuse a replay.
 */
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
