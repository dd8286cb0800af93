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

  it('never verifies an empty or malformed hash', async () => {
    expect(await verifyPassword('', '')).toEqual({ valid: false, needsRehash: false, supported: true });
    expect((await verifyPassword('$argon2id$garbage', 'x')).valid).toBe(false);
    expect(isBcryptHash('$2b$10$tooshort')).toBe(false);
    expect(await verifyPassword('$2b$10$tooshort', 'x')).toEqual({ valid: false, needsRehash: false, supported: false });
  });

  // Test vectors of the OpenWall crypt_blowfish suite (hashes made elsewhere, not by bcryptjs).
  it('verifies bcrypt hashes (imports) and asks for a rehash to argon2id', async () => {
    const uu = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
    expect(isBcryptHash(uu)).toBe(true);
    expect(await verifyPassword(uu, 'U*U')).toEqual({ valid: true, needsRehash: true, supported: true });
    expect(await verifyPassword(uu, 'U*U*')).toEqual({ valid: false, needsRehash: false, supported: true });
    expect(await verifyPassword('$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK', 'U*U*')).toMatchObject({ valid: true });
  });

  it('refuses bcrypt passwords beyond 72 bytes (bcrypt would compare only a prefix)', async () => {
    const long = 'a'.repeat(80);
    const stored = await (await import('bcryptjs')).default.hash(long, 4);
    expect(await verifyPassword(stored, long)).toEqual({ valid: false, needsRehash: false, supported: true });
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
