/**
 * The shared rate-limit table (src/cluster/shared-rate-table.ts): counts of one key from two
 * real worker threads sharing the buffer sum exactly; fixed windows with a controllable clock
 * (RateLimiterMemory's semantics with blockDuration = duration); slots whose window ended are
 * reused; a full table counts in the worker's own limiter with limit / workers, never unlimited;
 * fingerprints depend on the node secret.
 */
import { Worker } from 'node:worker_threads';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { createSharedRateTable, fingerprintOf, PROBES, sharedCounters } from '../../src/cluster/shared-rate-table.js';
import type { LimitCounter } from '../../src/http/rate-limits.js';

const WORKER = new URL('./shared-rate-table-counter.mjs', import.meta.url);

/** Consumes once: the result and whether it was allowed. */
async function consume(counter: LimitCounter, key: string): Promise<{ ok: boolean; res: RateLimiterRes }> {
  try {
    return { ok: true, res: await counter.consume(key) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { ok: false, res: rejection };
  }
}

describe('shared rate-limit table', () => {
  it('two worker threads × 1,000 consumes of one key with a limit of 1,500: exactly 1,500 allowed', async () => {
    const table = createSharedRateTable(1024);
    const start = new SharedArrayBuffer(8);
    const flags = new Int32Array(start);
    const data = { table, start, times: 1_000, key: 'inst\u0000client-1', rate: { points: 1_500, windowMs: 3_600_000 } };
    const workers = [new Worker(WORKER, { workerData: data }), new Worker(WORKER, { workerData: data })];
    const results = workers.map((w) => new Promise<{ allowed: number; refused: number }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    }));
    while (Atomics.load(flags, 1) < 2) await new Promise((r) => setTimeout(r, 5));
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    const [a, b] = await Promise.all(results);
    await Promise.all(workers.map((w) => w.terminate()));
    expect((a?.allowed ?? 0) + (b?.allowed ?? 0)).toBe(1_500);
    expect((a?.refused ?? 0) + (b?.refused ?? 0)).toBe(500);
    // Both threads counted (the sum is not one thread's alone).
    expect(a?.allowed).toBeGreaterThan(0);
    expect(b?.allowed).toBeGreaterThan(0);
    // This thread shares the same counts: the key is refused here too; another key is not.
    const here = sharedCounters(table, { workers: 2 })('client', data.rate, 'node');
    expect((await consume(here, data.key)).ok).toBe(false);
    expect((await consume(here, 'inst\u0000client-2')).ok).toBe(true);
  });

  it('counts in fixed windows like RateLimiterMemory (blockDuration = duration), on a controllable clock', async () => {
    let now = 1_000_000;
    const counter = sharedCounters(createSharedRateTable(64), { workers: 2, now: () => now })('client', { points: 3, windowMs: 10_000 }, 'node');
    const first = await consume(counter, 'k');
    expect(first).toMatchObject({ ok: true, res: { remainingPoints: 2, consumedPoints: 1, msBeforeNext: 10_000, isFirstInDuration: true } });
    now += 4_000;
    expect(await consume(counter, 'k')).toMatchObject({ ok: true, res: { remainingPoints: 1, consumedPoints: 2, msBeforeNext: 6_000, isFirstInDuration: false } });
    expect(await consume(counter, 'k')).toMatchObject({ ok: true, res: { remainingPoints: 0, consumedPoints: 3 } });
    // The first event past the limit refuses the key for a whole window from then (Retry-After).
    now += 1_000;
    expect(await consume(counter, 'k')).toMatchObject({ ok: false, res: { remainingPoints: 0, consumedPoints: 4, msBeforeNext: 10_000 } });
    now += 9_999;
    expect(await consume(counter, 'k')).toMatchObject({ ok: false, res: { consumedPoints: 5, msBeforeNext: 1 } });
    // The window ended: a fresh one.
    now += 1;
    expect(await consume(counter, 'k')).toMatchObject({ ok: true, res: { remainingPoints: 2, consumedPoints: 1, msBeforeNext: 10_000, isFirstInDuration: true } });
  });

  it('keeps counters of different limits, scopes and rates apart', async () => {
    const table = createSharedRateTable(64);
    const rate = { points: 1, windowMs: 60_000 };
    const counters = sharedCounters(table, { workers: 1 });
    expect((await consume(counters('client', rate, 'node'), 'k')).ok).toBe(true);
    expect((await consume(counters('client', rate, 'node'), 'k')).ok).toBe(false);
    expect((await consume(counters('apiCaller', rate, 'node'), 'k')).ok).toBe(true);
    expect((await consume(counters('client', rate, 'inst-1'), 'k')).ok).toBe(true);
    expect((await consume(counters('client', { points: 1, windowMs: 30_000 }, 'node'), 'k')).ok).toBe(true);
  });

  it('reuses slots whose window ended; a full table counts alone with limit / workers, never unlimited', async () => {
    let now = 0;
    let fallbacks = 0;
    // PROBES slots: every key's probe covers the whole table.
    const counters = sharedCounters(createSharedRateTable(PROBES), { workers: 2, now: () => now, onFallback: () => fallbacks++ });
    const counter = counters('client', { points: 4, windowMs: 1_000 }, 'node');
    for (let i = 0; i < PROBES; i++) expect((await consume(counter, `k${i}`)).res.isFirstInDuration).toBe(true);
    expect(fallbacks).toBe(0);
    // Full: a new key is counted by this worker's own limiter with 4 / 2 = 2 points.
    expect(await consume(counter, 'extra')).toMatchObject({ ok: true, res: { remainingPoints: 1 } });
    expect((await consume(counter, 'extra')).ok).toBe(true);
    expect((await consume(counter, 'extra')).ok).toBe(false);
    expect(fallbacks).toBe(1);
    // Keys already in the table still count there (the control: the table itself still answers).
    expect(await consume(counter, 'k0')).toMatchObject({ ok: true, res: { consumedPoints: 2 } });
    // Their windows end: every slot is free again and a new key gets one.
    now += 1_000;
    expect(await consume(counter, 'another')).toMatchObject({ ok: true, res: { remainingPoints: 3, isFirstInDuration: true } });
    expect(await consume(counter, 'another')).toMatchObject({ ok: true, res: { remainingPoints: 2 } });
    expect(fallbacks).toBe(1);
  });

  it('fingerprints depend on the node secret', () => {
    const a = createSharedRateTable(16);
    const b = createSharedRateTable(16);
    const args = ['client', 'node', 10, 60_000, 'inst\u0000client'] as const;
    expect(fingerprintOf(a.secret, ...args)).toEqual(fingerprintOf(a.secret, ...args));
    expect(fingerprintOf(a.secret, ...args)).not.toEqual(fingerprintOf(b.secret, ...args));
    expect(fingerprintOf(a.secret, ...args)).not.toEqual(fingerprintOf(a.secret, 'client', 'node', 10, 60_000, 'inst\u0000client2'));
  });
});
