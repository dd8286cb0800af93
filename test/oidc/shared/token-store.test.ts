/**
 * Opaque token values and their TTL row keys (issue 13): a new token starts with its issue time
 * (8 characters, seconds then milliseconds, that sort as the times do), its row key is that
 * prefix then the token's SHA-256 digest, so rows append in issue order. Tokens issued with the
 * seconds prefix alone (49 characters, row under 6 characters and the digest) and before any
 * prefix (43 characters, row under the digest alone) keep working until they expire. A build
 * that issued such tokens cannot be run here, so they are written at the token-store level under
 * the key form that build's `tokenKey` wrote, on a real LMDB store and, when
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
const NOW_MS = NOW_S * 1000 + 517;

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

/** A token as the build with the seconds prefix alone issued it: 6 characters of seconds, then 256 random bits. */
function secondsToken(): string {
  return timePrefix(NOW_S) + oldToken();
}

const digest = (token: string) => hash('sha256', token, 'base64url');

describe('token values', () => {
  it('start with the issue time, seconds then milliseconds, then 256 random bits', () => {
    const token = newTokenValue(1_800_000_000_123);
    expect(token).toMatch(/^[A-Za-z0-9_-]{51}$/);
    expect(token.slice(0, 6)).toBe(timePrefix(1_800_000_000));
    expect(newTokenValue(1_800_000_000_123).slice(8)).not.toBe(token.slice(8));
    expect(newTokenValue(1_800_000_000_123).slice(0, 8)).toBe(token.slice(0, 8));
    expect(newTokenValue(1_800_000_000_124).slice(0, 8)).not.toBe(token.slice(0, 8));
  });

  it('has prefixes that sort as the times they encode, across digit carries', () => {
    const times = [0, 1, 63, 64, 65, 4095, 4096, 262_143, 262_144, 1_799_999_999, 1_800_000_000, 1_800_000_063, 1_800_000_064, 2 ** 36 - 1];
    const prefixes = times.map(timePrefix);
    expect(prefixes.every((p) => /^[A-Za-z0-9_-]{6}$/.test(p))).toBe(true);
    expect([...prefixes].sort()).toEqual(prefixes);
    expect(new Set(prefixes).size).toBe(times.length);
  });

  it('key a new token by its 8-character prefix and its digest, a seconds-prefixed one by 6 characters and its digest, an old one by its digest alone', () => {
    const token = newTokenValue(NOW_MS);
    expect(tokenKey(token)).toBe(token.slice(0, 8) + digest(token));
    const seconds = secondsToken();
    expect(tokenKey(seconds)).toBe(seconds.slice(0, 6) + digest(seconds));
    const old = oldToken();
    expect(tokenKey(old)).toBe(digest(old));
  });

  it('orders the row keys of tokens by issue time, milliseconds included', () => {
    const start = NOW_S * 1000;
    const keys = [0, 1, 63, 64, 65, 999, 1000, 1001, 64_000, 4_096_000].map((ms) => tokenKey(newTokenValue(start + ms)));
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys.map((key) => key.slice(0, 8))).size).toBe(keys.length);
  });

  it('keys a 49- or 51-character value whose prefix no issued token has by its digest alone', () => {
    const forged = `\u0000${newTokenValue(NOW_MS).slice(1)}`;
    expect(tokenKey(forged)).toBe(digest(forged));
    const forgedSeconds = `\u0000${secondsToken().slice(1)}`;
    expect(tokenKey(forgedSeconds)).toBe(digest(forgedSeconds));
    const plausible = `abcdef${oldToken()}`;
    expect(tokenKey(plausible)).toBe(`abcdef${digest(plausible)}`);
    const plausibleMs = `abcdefgh${oldToken()}`;
    expect(tokenKey(plausibleMs)).toBe(`abcdefgh${digest(plausibleMs)}`);
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
      const token = newTokenValue(NOW_MS);
      await tokens.putAccessToken(INSTANCE, token, accessRecord());
      expect(await tokens.findAccessToken(INSTANCE, token)).toEqual(accessRecord());
      expect(await ttl.get(INSTANCE, 'oidc.at', token.slice(0, 8) + digest(token))).toEqual(accessRecord());
      expect(await ttl.get(INSTANCE, 'oidc.at', token.slice(0, 6) + digest(token))).toBeUndefined();
      expect(await ttl.get(INSTANCE, 'oidc.at', digest(token))).toBeUndefined();
      await tokens.deleteAccessTokenByKey(INSTANCE, tokenKey(token));
      expect(await tokens.findAccessToken(INSTANCE, token)).toBeUndefined();
    });

    it('finds, revokes and deletes an access token stored with the seconds prefix alone (49 characters)', async () => {
      const { ttl, tokens } = await open();
      const token = secondsToken();
      await ttl.put(INSTANCE, 'oidc.at', token.slice(0, 6) + digest(token), accessRecord(), (NOW_S + 3600) * 1000);
      expect(await tokens.findAccessToken(INSTANCE, token)).toEqual(accessRecord());
      // Revocation (revoke.ts) deletes by tokenKey(token).
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
      const access = newTokenValue(NOW_MS);
      const refresh = newTokenValue(NOW_MS);
      await tokens.putAccessToken(INSTANCE, access, accessRecord());
      await tokens.putRefreshToken(INSTANCE, refresh, refreshRecord(tokenKey(access)), (NOW_S + 3600) * 1000);
      expect(await ttl.get(INSTANCE, 'oidc.rt', refresh.slice(0, 8) + digest(refresh))).toBeDefined();
      const taken = await tokens.takeRefreshToken(INSTANCE, refresh);
      await tokens.deleteAccessTokenByKey(INSTANCE, taken!.accessToken.ref);
      expect(await tokens.findAccessToken(INSTANCE, access)).toBeUndefined();
    });

    it('answers a presented value with a NUL in its prefix as unknown (no key error)', async () => {
      const { tokens } = await open();
      await expect(tokens.findAccessToken(INSTANCE, `\u0000${newTokenValue(NOW_MS).slice(1)}`)).resolves.toBeUndefined();
    });
  });
}

describeTokenRows('lmdb', async () => tempLmdbStore('tessera-tokens-'));

const postgresVerdict = await meet(POSTGRES);
describeIfMet(postgresVerdict, 'postgres', () => {
  describeTokenRows('postgres', () => tempPostgresStore({ maxConnections: 2 }));
});
