/**
 * The worker change feed (src/cluster/worker-feed.ts) between two real threads on one real LMDB
 * directory: this test's thread reads, a worker thread (worker-feed-writer.mjs) writes. The
 * reading thread opens its read snapshot, then blocks (Atomics.wait, no event-loop turn) until
 * the writer has committed and bumped the generation — the moment a client holding the write's
 * reply could ask this thread. Before catching up, this thread still reads its old snapshot and
 * has applied no change (the control: what a worker without the check would serve); after
 * catchUp() it reads the write and has dispatched the change, once.
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapter, StoreChange } from '../../actors/index.js';
import { joinWorkerFeed, type WorkerFeed } from '../../src/cluster/worker-feed.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { suiteTempDir } from '../temp-dirs.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const dir = suiteTempDir('tessera-worker-feed-');
const link = { index: 0, count: 2, channel: `tessera-test-${randomBytes(6).toString('hex')}`, generation: new SharedArrayBuffer(4) };
const generation = new Int32Array(link.generation);
let feed: WorkerFeed;
let store: StoreAdapter;
let writer: Worker;
const received: StoreChange[] = [];

/** Asks the writer thread to write, and blocks this thread (no event-loop turn) until it has committed. */
function writeElsewhere(message: { kind: 'append' | 'ttl'; id: string }): Promise<unknown> {
  const done = new Promise((resolve) => writer.once('message', resolve));
  const before = Atomics.load(generation, 0);
  writer.postMessage(message);
  // The writer bumps without notifying (no waiter in production): sleep in short steps, never turning the event loop.
  const deadline = Date.now() + 30_000;
  while (Atomics.load(generation, 0) === before && Date.now() < deadline) Atomics.wait(generation, 0, before, 5);
  expect(Atomics.load(generation, 0)).not.toBe(before);
  return done;
}

beforeAll(async () => {
  feed = joinWorkerFeed(link, silent);
  store = feed.wrap(openLmdbStore({ path: dir }));
  await store.changes?.subscribe((change) => received.push(change));
  writer = new Worker(new URL('./worker-feed-writer.mjs', import.meta.url), { workerData: { link, path: dir } });
});
afterAll(async () => {
  writer.postMessage({ kind: 'stop' });
  await new Promise((resolve) => writer.once('exit', resolve));
  await store.close();
  feed.close();
});

describe('worker change feed', () => {
  it("serves another thread's append only after catching up: the change dispatched once, the row read", async () => {
    expect(await store.getRecord('inst', 'orgs', 'o1')).toBeUndefined(); // opens this thread's read snapshot
    const done = writeElsewhere({ kind: 'append', id: 'o1' });
    // Control: committed elsewhere, but this thread still reads its snapshot and has applied nothing.
    expect(await store.getRecord('inst', 'orgs', 'o1')).toBeUndefined();
    expect(received).toEqual([]);
    feed.catchUp();
    expect(received).toEqual([{ instanceId: 'inst', fromPosition: 1, toPosition: 1, streams: [{ aggregateType: 'org', aggregateId: 'o1', version: 1 }] }]);
    expect(await store.getRecord('inst', 'orgs', 'o1')).toEqual({ name: 'o1' });
    await done;
    // Caught up: nothing more comes, neither from a second catchUp nor from the channel's event.
    feed.catchUp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toHaveLength(1);
  });

  it("reads another thread's TTL row (an opaque token, a code) only after catching up", async () => {
    expect(await store.ttl.get('inst', 'codes', 'c1')).toBeUndefined();
    const done = writeElsewhere({ kind: 'ttl', id: 'c1' });
    expect(await store.ttl.get('inst', 'codes', 'c1')).toBeUndefined(); // control: the old snapshot
    feed.catchUp();
    expect(await store.ttl.get('inst', 'codes', 'c1')).toEqual({ code: 'c1' });
    await done;
  });
});
