/** Password hashing (argon2id, OWASP parameters) and the complexity policy. */
import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_SETTINGS, type PasswordComplexity } from '../../actors/index.js';
import { complexityViolations, hashPassword, isBcryptHash, requirePasswordComplexity, verifyPassword } from '../../src/crypto/password.js';

const policy = DEFAULT_USER_SETTINGS.passwordComplexity;

describe('hashing', () => {
  it('hashes with argon2id m=19456 t=2 p=1 and verifies', async () => {
    const stored = await hashPassword('Secr3t pässword');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hashPassword('Secr3t pässword')).not.toBe(stored); // salted
    expect(await verifyPassword(stored, 'Secr3t pässword')).toEqual({ valid: true, needsRehash: false, supported: true });
    expect(await verifyPassword(stored, 'Secr3t passwort')).toEqual({ valid: false, needsRehash: false, supported: true });
  });

  it('verifies older argon2 parameters and asks for a rehash', async () => {
    const old = await hash('pw', { algorithm: 1, memoryCost: 4096, timeCost: 3, parallelism: 1 }); // argon2i
    expect(old).toMatch(/^\$argon2i\$/);
    expect(await verifyPassword(old, 'pw')).toEqual({ valid: true, needsRehash: true, supported: true });
  });

  it('never verifies an empty, malformed or bcrypt hash', async () => {
    expect(await verifyPassword('', '')).toEqual({ valid: false, needsRehash: false, supported: true });
    expect((await verifyPassword('$argon2id$garbage', 'x')).valid).toBe(false);
    const bcrypt = '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
    expect(isBcryptHash(bcrypt)).toBe(true);
    expect(await verifyPassword(bcrypt, 'anything')).toEqual({ valid: false, needsRehash: false, supported: false });
  });
});

describe('complexity policy', () => {
  it('defaults to 8 characters with upper, lower and number', () => {
    expect(policy).toEqual({ minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false });
    expect(complexityViolations('Abcdefg1', policy)).toEqual([]);
    expect(complexityViolations('abc', policy)).toEqual([
      'must be at least 8 characters long',
      'must contain an uppercase letter',
      'must contain a number',
    ]);
  });

  it('counts characters, not UTF-16 units, and knows non-ASCII letters and symbols', () => {
    const strict: PasswordComplexity = { minLength: 4, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true };
    expect(complexityViolations('Ää1€', strict)).toEqual([]);
    expect(complexityViolations('😀😀😀', { ...strict, hasUppercase: false, hasLowercase: false, hasNumber: false })).toEqual([
      'must be at least 4 characters long',
    ]);
    expect(complexityViolations('Abcd1234', strict)).toEqual(['must contain a symbol']);
  });

  it('throws 400 user.password.complexity naming the field', () => {
    try {
      requirePasswordComplexity('weak', policy, 'user.human.password');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ kind: 'invalid_argument', code: 'user.password.complexity', violations: [{ field: 'user.human.password' }] });
    }
    expect(() => requirePasswordComplexity('Strong1Password', policy, 'password')).not.toThrow();
  });
});
