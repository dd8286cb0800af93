/**
 * The TTL sweeper over a stand-in store port: sweeps on its interval with the injected
 * clock's time, logs failures instead of throwing, never overlaps sweeps, stops on stop().
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManualClock, type Logger, type StoreAdapter, type TtlStore } from '../../actors/index.js';
import { startSweeper } from '../../src/store/sweeper.js';

function stubStore(sweep: TtlStore['sweep']): StoreAdapter {
  const ttl = { sweep } as TtlStore;
  return { ttl } as StoreAdapter;
}

function recordingLogger(): Logger & { errors: unknown[] } {
  const errors: unknown[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (obj) => void errors.push(obj) };
}

describe('startSweeper', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps every interval with the clock time until stopped', async () => {
    const clock = createManualClock(1_000);
    const calls: number[] = [];
    const sweeper = startSweeper(stubStore(async (now) => (calls.push(now), 2)), clock, 100);
    await vi.advanceTimersByTimeAsync(100);
    clock.advance(50);
    await vi.advanceTimersByTimeAsync(100);
    sweeper.stop();
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([1_000, 1_050]);
  });

  it('logs a failed sweep and keeps going', async () => {
    const logger = recordingLogger();
    let attempts = 0;
    const failing = stubStore(async () => {
      attempts += 1;
      throw new Error('disk full');
    });
    const sweeper = startSweeper(failing, createManualClock(), 10, logger);
    await vi.advanceTimersByTimeAsync(30);
    sweeper.stop();
    expect(attempts).toBe(3);
    expect(logger.errors).toHaveLength(3);
    expect(logger.errors[0]).toMatchObject({ err: new Error('disk full') });
  });

  it('does not start a sweep while the previous one is still running', async () => {
    let running = 0;
    let overlapped = false;
    const slow = stubStore(async () => {
      running += 1;
      overlapped ||= running > 1;
      await new Promise((resolve) => setTimeout(resolve, 35));
      running -= 1;
      return 0;
    });
    const sweeper = startSweeper(slow, createManualClock(), 10);
    await vi.advanceTimersByTimeAsync(200);
    sweeper.stop();
    expect(overlapped).toBe(false);
  });
});
