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

  it('gives every call its own deadline, counted from when it started, and leaves answered calls alone', async () => {
    vi.useFakeTimers();
    const answers = new Map<string, (value: unknown) => void>();
    const store = withUnavailableErrors({
      kind: 'postgres',
      getMeta: (key: string) => new Promise((resolve) => answers.set(key, resolve)),
      ttl: {},
    } as unknown as StoreAdapter);
    const outcome = (p: Promise<unknown>) => {
      const seen: { state: string; value?: unknown } = { state: 'pending' };
      p.then((value) => Object.assign(seen, { state: 'answered', value }), (error: unknown) => Object.assign(seen, { state: 'failed', value: error }));
      return seen;
    };
    const first = outcome(store.getMeta('first'));
    await vi.advanceTimersByTimeAsync(3_000);
    const second = outcome(store.getMeta('second'));
    await vi.advanceTimersByTimeAsync(1_000);
    const answered = outcome(store.getMeta('answered'));
    await vi.advanceTimersByTimeAsync(1_000);
    answers.get('answered')!('value');
    await vi.advanceTimersByTimeAsync(CALL_DEADLINE_MS - 5_001);
    expect([first.state, second.state, answered]).toEqual(['pending', 'pending', { state: 'answered', value: 'value' }]);
    await vi.advanceTimersByTimeAsync(1);
    expect(first).toMatchObject({ state: 'failed', value: { kind: 'unavailable', code: 'store.unavailable' } });
    expect(second.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(2_999);
    expect(second.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(second).toMatchObject({ state: 'failed', value: { kind: 'unavailable' } });
    // A late answer changes nothing, and the next call still gets its full deadline.
    answers.get('first')!('late');
    const third = outcome(store.getMeta('third'));
    await vi.advanceTimersByTimeAsync(CALL_DEADLINE_MS - 1);
    expect([first.state, third.state]).toEqual(['failed', 'pending']);
    await vi.advanceTimersByTimeAsync(1);
    expect(third.state).toBe('failed');
  });
});
