/**
 * The one-time codes Tessera sends by mail or SMS (issue 14): password reset codes
 * (password-reset.ts) and login codes of OTP by email / SMS (otp-message.ts). A code is 8 digits
 * from a CSPRNG; only its SHA-256 digest is recorded, bound to its purpose and user, so a code
 * of one purpose or user never matches another's.
 */
import { createHash, randomInt } from 'node:crypto';

/** Digits of a code. */
export const ONE_TIME_CODE_DIGITS = 8;

export function newOneTimeCode(): string {
  return String(randomInt(0, 10 ** ONE_TIME_CODE_DIGITS)).padStart(ONE_TIME_CODE_DIGITS, '0');
}

/** The digest a code is recorded as (base64url SHA-256 of purpose, user and code). */
export function oneTimeCodeDigest(purpose: string, userId: string, code: string): string {
  return createHash('sha256').update(`${purpose}\u0000${userId}\u0000${code.trim()}`).digest('base64url');
}
