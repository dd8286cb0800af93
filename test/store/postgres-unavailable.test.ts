/**
 * Connection errors of the PostgreSQL store become `unavailable` (503 + Retry-After); every
 * other error passes unchanged, from promises and from streamed reads alike.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError, type StoreAdapter } from '../../actors/index.js';
import { CALL_DEADLINE_MS, isUnavailableError, withUnavailableErrors } from '../../src/store/postgres-unavailable.js';

const coded = (code: string) => Object.assign(new Error(`failure ${code}`), { code });

describe('isUnavailableError', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'CONNECTION_ENDED', '57P01', '57P03', '53300', '08006', '08001'])('%s is the database being unreachable', (code) => {
    expect(isUnavailableError(coded(code))).toBe(true);
  });

  it.each(['23505', '40001', '42P01', 'ERR_SOMETHING'])('%s is not', (code) => {
    expect(isUnavailableError(coded(code))).toBe(false);
  });

  it('leaves AppErrors and values without a code alone', () => {
    expect(isUnavailableError(new AppError('internal', 'internal.unexpected', 'z'))).toBe(false);
    expect(isUnavailableError(new Error('plain'))).toBe(false);
    expect(isUnavailableError('ECONNRESET')).toBe(false);
  });
});

describe('withUnavailableErrors', () => {
  const failing = (error: unknown) =>
    ({
      kind: 'postgres',
      getMeta: () => Promise.reject(error),
      scanRecords: async function* () {
        yield 1;
        throw error;
      },
      ttl: { get: () => Promise.reject(error) },
    }) as unknown as StoreAdapter;

  it('turns connection errors into unavailable with Retry-After, the cause kept', async () => {
    const reset = coded('ECONNRESET');
    const store = withUnavailableErrors(failing(reset));
    await expect(store.getMeta('k')).rejects.toMatchObject({ kind: 'unavailable', code: 'store.unavailable', retryAfterSeconds: 1, cause: reset });
    await expect(store.ttl.get('i', 't', 'k')).rejects.toMatchObject({ kind: 'unavailable' });
    const seen: unknown[] = [];
    await expect((async () => {
      for await (const row of store.scanRecords('i', 't')) seen.push(row);
    })()).rejects.toMatchObject({ kind: 'unavailable' });
    expect(seen).toEqual([1]);
  });

  it('passes other errors through unchanged', async () => {
    const clash = coded('23505');
    await expect(withUnavailableErrors(failing(clash)).getMeta('k')).rejects.toBe(clash);
  });
});

describe('call deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers unavailable when a request-path call never settles, but lets a copy run as long as it takes', async () => {
    vi.useFakeTimers();
    const never = new Promise<never>(() => undefined);
    const store = withUnavailableErrors({ kind: 'postgres', getMeta: () => never, load: () => never, ttl: {} } as unknown as StoreAdapter);
    const read = store.getMeta('k');
    const load = store.load((async function* () {})());
    let loadSettled = false;
    load.then(() => (loadSettled = true), () => (loadSettled = true));
    const readFailed = expect(read).rejects.toMatchObject({ kind: 'unavailable', code: 'store.unavailable', retryAfterSeconds: 1 });
    await vi.advanceTimersByTimeAsync(CALL_DEADLINE_MS);
    await readFailed;
    await vi.advanceTimersByTimeAsync(10 * CALL_DEADLINE_MS);
    expect(loadSettled).toBe(false);
  });
});
