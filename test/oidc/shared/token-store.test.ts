/**
 * Opaque token values and their TTL row keys (issue 13): a new token starts with its issue time
 * (6 characters that sort as the times do), its row key is that prefix then the token's SHA-256
 * digest, so rows append in time order. Tokens issued before the prefix (43 characters, row
 * under the digest alone) keep working until they expire. A build that issued old tokens cannot
 * be run here, so an old token is written at the token-store level under the old key form (the
 * digest alone, what the old `tokenKey` wrote), on a real LMDB store and, when
 * TESSERA_TEST_DATABASE_URL answers, a real PostgreSQL store.
 */
import { hash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreAdapter } from '../../../actors/index.js';
import { type AccessTokenRecord, createTokenStore, newTokenValue, type RefreshTokenRecord, timePrefix, tokenKey } from '../../../src/oidc/shared/token-store.js';
import { describeIfMet, meet, POSTGRES } from '../../requirements.js';
import { tempLmdbStore, tempPostgresStore } from '../../store/temp-stores.js';

const INSTANCE = 'inst-1';
const NOW_S = Math.floor(Date.now() / 1000);

function accessRecord(): AccessTokenRecord {
  return { format: 'opaque', jti: 'g1.t1', grantId: 'g1', sub: 'u1', clientId: 'c1', aud: ['c1'], scope: ['openid'], iat: NOW_S, exp: NOW_S + 3600 };
}

function refreshRecord(accessRef: string): RefreshTokenRecord {
  return {
    grantId: 'g1',
    sub: 'u1',
    clientId: 'c1',
    aud: ['c1'],
    scope: ['openid'],
    accessTokenFormat: 'opaque',
    absoluteExpiresAt: (NOW_S + 86_400) * 1000,
    expiresAt: (NOW_S + 3600) * 1000,
    accessToken: { format: 'opaque', ref: accessRef, exp: NOW_S + 3600 },
  };
}

/** A token as the build before the time prefix issued it: 256 random bits, base64url. */
function oldToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (token: string) => hash('sha256', token, 'base64url');

describe('token values', () => {
  it('start with the issue time, then 256 random bits', () => {
    const token = newTokenValue(1_800_000_000);
    expect(token).toMatch(/^[A-Za-z0-9_-]{49}$/);
    expect(token.slice(0, 6)).toBe(timePrefix(1_800_000_000));
    expect(newTokenValue(1_800_000_000).slice(6)).not.toBe(token.slice(6));
  });

  it('has prefixes that sort as the times they encode, across digit carries', () => {
    const times = [0, 1, 63, 64, 65, 4095, 4096, 262_143, 262_144, 1_799_999_999, 1_800_000_000, 1_800_000_063, 1_800_000_064, 2 ** 36 - 1];
    const prefixes = times.map(timePrefix);
    expect(prefixes.every((p) => /^[A-Za-z0-9_-]{6}$/.test(p))).toBe(true);
    expect([...prefixes].sort()).toEqual(prefixes);
    expect(new Set(prefixes).size).toBe(times.length);
  });

  it('key a new token by its prefix and its digest, an old one by its digest alone', () => {
    const token = newTokenValue(NOW_S);
    expect(tokenKey(token)).toBe(token.slice(0, 6) + digest(token));
    const old = oldToken();
    expect(tokenKey(old)).toBe(digest(old));
  });

  it('orders the row keys of tokens by issue time', () => {
    const keys = [NOW_S, NOW_S + 1, NOW_S + 64, NOW_S + 4096].map((t) => tokenKey(newTokenValue(t)));
    expect([...keys].sort()).toEqual(keys);
  });

  it('keys a 49-character value whose prefix no issued token has by its digest alone', () => {
    const forged = `\u0000${newTokenValue(NOW_S).slice(1)}`;
    expect(tokenKey(forged)).toBe(digest(forged));
    const plausible = `abcdef${oldToken()}`;
    expect(tokenKey(plausible)).toBe(`abcdef${digest(plausible)}`);
  });
});

function describeTokenRows(name: string, openStore: () => Promise<{ store: StoreAdapter; cleanup: () => Promise<void> }>): void {
  describe(`token rows on ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });
    const open = async () => {
      const { store, cleanup } = await openStore();
      cleanups.push(cleanup);
      return { ttl: store.ttl, tokens: createTokenStore(store.ttl) };
    };

    it('stores a new access token under its prefixed key and finds it by the token', async () => {
      const { ttl, tokens } = await open();
      const token = newTokenValue(NOW_S);
      await tokens.putAccessToken(INSTANCE, token, accessRecord());
      expect(await tokens.findAccessToken(INSTANCE, token)).toEqual(accessRecord());
      expect(await ttl.get(INSTANCE, 'oidc.at', token.slice(0, 6) + digest(token))).toEqual(accessRecord());
      expect(await ttl.get(INSTANCE, 'oidc.at', digest(token))).toBeUndefined();
      await tokens.deleteAccessTokenByKey(INSTANCE, tokenKey(token));
      expect(await tokens.findAccessToken(INSTANCE, token)).toBeUndefined();
    });

    it('finds and deletes an access token stored under the old key (the digest alone)', async () => {
      const { ttl, tokens } = await open();
      const old = oldToken();
      await ttl.put(INSTANCE, 'oidc.at', digest(old), accessRecord(), (NOW_S + 3600) * 1000);
      expect(await tokens.findAccessToken(INSTANCE, old)).toEqual(accessRecord());
      // Revocation and refresh rotation delete by key (revoke.ts: tokenKey(token); a refresh row's accessToken.ref).
      await tokens.deleteAccessTokenByKey(INSTANCE, tokenKey(old));
      expect(await tokens.findAccessToken(INSTANCE, old)).toBeUndefined();
    });

    it('rotates a refresh token stored under the old key: found, taken once, its reuse marker found, its old access token deleted', async () => {
      const { ttl, tokens } = await open();
      const oldAccess = oldToken();
      const oldRefresh = oldToken();
      await ttl.put(INSTANCE, 'oidc.at', digest(oldAccess), accessRecord(), (NOW_S + 3600) * 1000);
      const record = refreshRecord(digest(oldAccess));
      await ttl.put(INSTANCE, 'oidc.rt', digest(oldRefresh), record, (NOW_S + 3600) * 1000);
      expect(await tokens.findRefreshToken(INSTANCE, oldRefresh)).toEqual(record);
      const taken = await tokens.takeRefreshToken(INSTANCE, oldRefresh);
      expect(taken).toEqual(record);
      expect(await tokens.takeRefreshToken(INSTANCE, oldRefresh)).toBeUndefined();
      await tokens.markRotated(INSTANCE, oldRefresh, taken!);
      expect(await tokens.findRotatedRefreshToken(INSTANCE, oldRefresh)).toMatchObject({ grantId: 'g1', clientId: 'c1' });
      await tokens.deleteAccessTokenByKey(INSTANCE, taken!.accessToken.ref);
      expect(await tokens.findAccessToken(INSTANCE, oldAccess)).toBeUndefined();
    });

    it('revokes a refresh token stored under the old key', async () => {
      const { ttl, tokens } = await open();
      const oldRefresh = oldToken();
      await ttl.put(INSTANCE, 'oidc.rt', digest(oldRefresh), refreshRecord('x'), (NOW_S + 3600) * 1000);
      expect(await tokens.findRefreshToken(INSTANCE, oldRefresh)).toBeDefined();
      await tokens.deleteRefreshToken(INSTANCE, oldRefresh);
      expect(await tokens.findRefreshToken(INSTANCE, oldRefresh)).toBeUndefined();
    });

    it('stores a new refresh token under its prefixed key, and its access token ref is the prefixed key', async () => {
      const { ttl, tokens } = await open();
      const access = newTokenValue(NOW_S);
      const refresh = newTokenValue(NOW_S);
      await tokens.putAccessToken(INSTANCE, access, accessRecord());
      await tokens.putRefreshToken(INSTANCE, refresh, refreshRecord(tokenKey(access)), (NOW_S + 3600) * 1000);
      expect(await ttl.get(INSTANCE, 'oidc.rt', refresh.slice(0, 6) + digest(refresh))).toBeDefined();
      const taken = await tokens.takeRefreshToken(INSTANCE, refresh);
      await tokens.deleteAccessTokenByKey(INSTANCE, taken!.accessToken.ref);
      expect(await tokens.findAccessToken(INSTANCE, access)).toBeUndefined();
    });

    it('answers a presented value with a NUL in its prefix as unknown (no key error)', async () => {
      const { tokens } = await open();
      await expect(tokens.findAccessToken(INSTANCE, `\u0000${newTokenValue(NOW_S).slice(1)}`)).resolves.toBeUndefined();
    });
  });
}

describeTokenRows('lmdb', async () => tempLmdbStore('tessera-tokens-'));

const postgresVerdict = await meet(POSTGRES);
describeIfMet(postgresVerdict, 'postgres', () => {
  describeTokenRows('postgres', () => tempPostgresStore({ maxConnections: 2 }));
});
