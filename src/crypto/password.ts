/**
 * Password hashing and the complexity policy. New hashes are argon2id with the OWASP
 * parameters (m = 19456 KiB, t = 2, p = 1) as PHC strings; any argon2 PHC string verifies.
 * bcrypt hashes ($2a$/$2b$/$2y$, e.g. imported from another identity system) verify too, and
 * always report `needsRehash`, so a caller can move them to argon2id after a good login.
 * argon2 runs on the libuv thread pool; bcryptjs is pure JavaScript and yields to the event loop
 * between rounds (async compare). Never inside an actor.
 * Both load on the first password operation, not with the node (argon2 is a native library:
 * idle memory, #13); the first one waits for the load once (bench/README.md, "Idle memory").
 */
import { randomBytes } from 'node:crypto';
import type { Options } from '@node-rs/argon2';
import type { FieldViolation, PasswordComplexity } from '../../actors/index.js';
import { invalidArgument } from '../../actors/index.js';
import { lazyModule } from '../runtime/lazy-module.js';

const ARGON2ID = 2; // Algorithm.Argon2id (an ambient const enum: not importable under isolatedModules)

export const PASSWORD_HASH_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const satisfies Options;

const loadArgon2 = lazyModule(() => import('@node-rs/argon2'));
const loadBcrypt = lazyModule(() => import('bcryptjs').then((module) => module.default));

export interface PasswordVerification {
  readonly valid: boolean;
  /** True when the hash is valid but not argon2id with the current parameters: store a new one. */
  readonly needsRehash: boolean;
  /** False for hash formats this build cannot verify (anything but argon2 and bcrypt). */
  readonly supported: boolean;
}

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  return hash(password, PASSWORD_HASH_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the time of a real password check without a user (an unknown login name, a locked
 * user): verifies against the hash of a random password, made once per process with the
 * current parameters. Never valid.
 */
export async function verifyDummyPassword(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  await verifyPassword(await dummyHash, password);
}

/** Verifies a password against a stored PHC string; '' (no password) never verifies. */
export async function verifyPassword(stored: string, password: string): Promise<PasswordVerification> {
  if (isBcryptHash(stored)) return verifyBcrypt(stored, password);
  if (!stored.startsWith('$argon2')) return { valid: false, needsRehash: false, supported: stored === '' };
  const { verify, parseOptions } = await loadArgon2();
  let valid: boolean;
  try {
    valid = await verify(stored, password);
  } catch {
    return { valid: false, needsRehash: false, supported: false }; // malformed PHC string
  }
  return { valid, needsRehash: valid && !hasCurrentParameters(stored, parseOptions), supported: true };
}

export function isBcryptHash(stored: string): boolean {
  return /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(stored);
}

async function verifyBcrypt(stored: string, password: string): Promise<PasswordVerification> {
  // bcrypt reads at most 72 bytes of the password; longer ones would match on a prefix.
  if (Buffer.byteLength(password, 'utf8') > 72) return { valid: false, needsRehash: false, supported: true };
  const bcrypt = await loadBcrypt();
  const valid = await bcrypt.compare(password, stored);
  return { valid, needsRehash: valid, supported: true };
}

function hasCurrentParameters(stored: string, parseOptions: (typeof import('@node-rs/argon2'))['parseOptions']): boolean {
  try {
    const used = parseOptions(stored);
    return (
      stored.startsWith('$argon2id$') &&
      used.memoryCost === PASSWORD_HASH_OPTIONS.memoryCost &&
      used.timeCost === PASSWORD_HASH_OPTIONS.timeCost &&
      used.parallelism === PASSWORD_HASH_OPTIONS.parallelism
    );
  } catch {
    return false;
  }
}

/** The requirements of the policy the password does not meet (empty: it complies). */
export function complexityViolations(password: string, policy: PasswordComplexity): string[] {
  const unmet: string[] = [];
  if ([...password].length < policy.minLength) unmet.push(`must be at least ${policy.minLength} characters long`);
  if (policy.hasUppercase && !/\p{Lu}/u.test(password)) unmet.push('must contain an uppercase letter');
  if (policy.hasLowercase && !/\p{Ll}/u.test(password)) unmet.push('must contain a lowercase letter');
  if (policy.hasNumber && !/\p{Nd}/u.test(password)) unmet.push('must contain a number');
  if (policy.hasSymbol && !/[^\p{L}\p{Nd}]/u.test(password)) unmet.push('must contain a symbol');
  return unmet;
}

/** Throws 400 `user.password.complexity` with a field violation on `field` unless the password complies. */
export function requirePasswordComplexity(password: string, policy: PasswordComplexity, field: string): void {
  const unmet = complexityViolations(password, policy);
  if (unmet.length === 0) return;
  const violations: FieldViolation[] = [{ field, description: unmet.join('; ') }];
  throw invalidArgument('user.password.complexity', 'the password does not meet the complexity policy', { violations });
}
