/**
 * The secret sealer and master-key parsing: AES-256-GCM round trip, fresh IV per seal,
 * tamper and wrong-key detection, and the accepted key forms (errors never echo the key).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretSealer, generateMasterKey, parseMasterKey } from '../../src/crypto/secret-sealer.js';

const key = Buffer.alloc(32, 7);

/** Flips one bit of the decoded bytes of part `index` of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('createSecretSealer', () => {
  const sealer = createSecretSealer(key);

  it.each(['', 'client-secret', 'ünïcødé ✓ 🔑', 'x'.repeat(10_000)])('round-trips %#', (plaintext) => {
    const sealed = sealer.seal(plaintext);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/);
    expect(sealer.open(sealed)).toBe(plaintext);
  });

  it('uses a fresh IV for every seal and never shows the plaintext', () => {
    const a = sealer.seal('same secret');
    const b = sealer.seal('same secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain(Buffer.from('same secret').toString('base64url'));
  });

  it.each([
    ['iv', 1],
    ['tag', 2],
    ['ciphertext', 3],
  ])('detects a flipped bit in the %s', (_part, index) => {
    const sealed = sealer.seal('client-secret');
    expect(() => sealer.open(flip(sealed, index))).toThrow('wrong master key or tampered data');
  });

  it('refuses to open under another key', () => {
    const sealed = sealer.seal('client-secret');
    expect(() => createSecretSealer(randomBytes(32)).open(sealed)).toThrow('wrong master key or tampered data');
  });

  it.each([
    ['no parts', 'garbage'],
    ['another version', 'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AA'],
    ['too many parts', 'v1.a.b.c.d'],
    ['a short tag', 'v1.AAAAAAAAAAAAAAAA.AAAA.AA'],
    ['non-base64url characters', 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.A+/='],
  ])('refuses a malformed value: %s', (_name, sealed) => {
    expect(() => sealer.open(sealed)).toThrow('malformed');
  });

  it('refuses a master key that is not 32 bytes', () => {
    expect(() => createSecretSealer(Buffer.alloc(16))).toThrow('32 bytes');
  });
});

describe('parseMasterKey', () => {
  const bytes = randomBytes(32);

  it.each([
    ['64 hex characters', bytes.toString('hex')],
    ['64 upper-case hex characters', bytes.toString('hex').toUpperCase()],
    ['base64 with padding', bytes.toString('base64')],
    ['base64 without padding', bytes.toString('base64').replace(/=$/, '')],
    ['base64url', bytes.toString('base64url')],
    ['hex with a trailing newline', `${bytes.toString('hex')}\n`],
  ])('accepts %s', (_form, text) => {
    expect(parseMasterKey(text).equals(bytes)).toBe(true);
  });

  it('accepts 32 printable ASCII characters as raw bytes', () => {
    const text = 'correct horse battery staple!!#1';
    expect(parseMasterKey(text).equals(Buffer.from(text, 'ascii'))).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['31 ASCII characters', 'a'.repeat(31)],
    ['33 ASCII characters', 'a'.repeat(33)],
    ['63 hex characters', 'ab'.repeat(31) + 'a'],
    ['hex of 33 bytes', 'ab'.repeat(33)],
    ['base64 of 31 bytes', Buffer.alloc(31, 1).toString('base64')],
    ['32 non-ASCII characters', 'é'.repeat(32)],
    ['32 characters with a control character', 'a'.repeat(31) + '\u0007'],
  ])('refuses %s without echoing it', (_form, text) => {
    let message = '';
    try {
      parseMasterKey(text);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('64 hex characters');
    expect(message).toContain('base64');
    expect(message).toContain('32 printable ASCII characters');
    if (text.length > 0) expect(message).not.toContain(text);
  });

  it('generates keys it accepts: 64 hex characters, different each time', () => {
    const a = generateMasterKey();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(parseMasterKey(a)).toHaveLength(32);
    expect(generateMasterKey()).not.toBe(a);
  });
});
