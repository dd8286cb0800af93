import { describe, expect, it } from 'vitest';
import { pooledRandomBase64url, randomSecret } from '../../src/crypto/random.js';

describe('pooledRandomBase64url', () => {
  it('gives base64url text of the asked number of bytes, each value new, across pool refills', () => {
    const seen = new Set<string>();
    // 3,000 × 32 bytes spans many 4 KiB refills.
    for (let i = 0; i < 3_000; i++) {
      const value = pooledRandomBase64url(32);
      expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(value, 'base64url')).toHaveLength(32);
      seen.add(value);
    }
    expect(seen.size).toBe(3_000);
    // Sizes that do not divide the pool still come out whole.
    for (const bytes of [1, 12, 16, 31, 4095, 4096]) expect(Buffer.from(pooledRandomBase64url(bytes), 'base64url')).toHaveLength(bytes);
  });

  it('serves sizes beyond the pool from randomBytes, as randomSecret does', () => {
    expect(Buffer.from(pooledRandomBase64url(5000), 'base64url')).toHaveLength(5000);
    expect(Buffer.from(randomSecret(), 'base64url')).toHaveLength(32);
  });

  it('spreads its bytes: every byte value turns up in a large sample (a stuck pool would not)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 400; i++) for (const byte of Buffer.from(pooledRandomBase64url(64), 'base64url')) counts[byte] = (counts[byte] ?? 0) + 1;
    expect(counts.filter((c) => c === 0)).toHaveLength(0);
  });
});
