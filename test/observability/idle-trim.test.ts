/**
 * The idle trim (#13): full collections run only in quiet intervals, at most two after each busy
 * one, and the collection's own time is left out of the next interval. The real collector is a
 * function that runs without leaving a `gc` global behind.
 */
import { describe, expect, it } from 'vitest';
import { createIdleTrim, fullCollection } from '../../src/observability/idle-trim.js';

/** A trim whose utilisation readings come from `readings`, one per call; collections are counted. */
function scripted(readings: number[], processReadings: number[] = []) {
  let collections = 0;
  let calls = 0;
  let processCalls = 0;
  const trim = createIdleTrim({
    idleUtilization: 0.02,
    utilization: () => readings[calls++] ?? 0,
    processLoad: () => processReadings[processCalls++] ?? 0,
    busyProcess: 0.25,
    collect: () => void collections++,
  });
  return { trim, collections: () => collections, calls: () => calls };
}

describe('idle trim', () => {
  it('collects in the first two quiet intervals after a busy one, then waits for the next busy one', () => {
    // Each collecting tick reads the utilisation twice: its interval, then right after the collection.
    const { trim, collections } = scripted([0.5, 0.001, 0, 0.001, 0, 0.001, 0.3, 0.001, 0]);
    trim.tick(); // busy
    expect(collections()).toBe(0);
    trim.tick(); // quiet: first collection
    expect(collections()).toBe(1);
    trim.tick(); // quiet: second collection
    expect(collections()).toBe(2);
    trim.tick(); // still quiet: nothing more to give back
    expect(collections()).toBe(2);
    trim.tick(); // busy again
    expect(collections()).toBe(2);
    trim.tick(); // quiet after it: collects again
    expect(collections()).toBe(3);
    expect(trim.trims).toBe(3);
  });

  it('never collects while busy; a reading just under the threshold counts as quiet', () => {
    const busy = scripted([0.02, 0.9, 0.05, 0.02]);
    for (let i = 0; i < 4; i++) busy.trim.tick();
    expect(busy.collections()).toBe(0);
    const quiet = scripted([0.0199, 0]);
    quiet.trim.tick();
    expect(quiet.collections()).toBe(1);
  });

  it('a quiet thread waits while the process is busy (another thread serving), then collects once it is quiet', () => {
    // One thread and one process reading per tick, and one of each right after a collection
    // (the 0.5 there is the collection's own CPU: left out, like the thread's reading).
    const { trim, collections } = scripted([0.5, 0.001, 0.001, 0.001, 0, 0.001, 0], [0.9, 0.9, 0.25, 0.24, 0.5, 0.01, 0.5]);
    trim.tick(); // this thread busy
    trim.tick(); // quiet thread, process at 0.9 cores
    trim.tick(); // quiet thread, process exactly at the threshold
    expect(collections()).toBe(0);
    trim.tick(); // process just under the threshold: collects
    expect(collections()).toBe(1);
    trim.tick(); // and the second quiet collection
    expect(collections()).toBe(2);
  });

  it('reads the utilisation again right after a collection, so its time is not the next interval\'s load', () => {
    const { trim, calls } = scripted([0.001, 0.9, 0.001]);
    trim.tick();
    // The 0.9 (the collection itself) was consumed by the read after collecting, not by the next tick.
    expect(calls()).toBe(2);
    trim.tick();
    expect(trim.trims).toBe(2);
  });

  it('runs a real full collection (an unreachable object is gone) without exposing gc on this context', async () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    const nextJob = () => new Promise((resolve) => setImmediate(resolve));
    const kept = { name: 'kept' };
    const ref = (() => new WeakRef({ name: 'dropped' }))();
    const keptRef = new WeakRef(kept);
    await nextJob(); // a WeakRef holds its target until the job that made it ends
    fullCollection()();
    await nextJob();
    expect(ref.deref()).toBeUndefined();
    expect(keptRef.deref()).toBe(kept); // control: a reachable object stays
    expect(typeof (globalThis as { gc?: unknown }).gc === 'function').toBe(hadGc);
  });
});
