/**
 * The SearchEvents walk (src/api/resources/events/event-scan.ts) on both stores: cursor pages
 * in both directions cover exactly the matching events once; a small budget stops a call early
 * with a cursor that continues; a stream walk reads only that stream; the instance of the
 * scan is the only one read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapter, StoredEvent } from '../../../actors/index.js';
import { scanEvents, type EventScan, type ScanLimits } from '../../../src/api/resources/events/event-scan.js';
import { describeIfMet, meet, POSTGRES } from '../../requirements.js';
import { tempLmdbStore, tempPostgresStore } from '../../store/temp-stores.js';
import { append, event, expect0 } from '../../store/store-suite.js';

const A = 'inst-a';
const B = 'inst-b';
/** 30 events in inst-a over 3 streams (t0, t1, t2 round robin), 5 in inst-b. */
async function seed(store: StoreAdapter): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const id = `t${i % 3}`;
    const version = Math.floor(i / 3);
    const result = await store.append(append(A, { createdAt: 1_000 + i, expectations: [expect0('thing', id, version)], events: [event('thing', id, i % 10 === 9 ? 'thing.rare' : 'thing.set', { i })] }));
    expect(result.ok).toBe(true);
  }
  for (let i = 0; i < 5; i++) {
    await store.append(append(B, { createdAt: 1_000 + i, expectations: [expect0('thing', 't0', i)], events: [event('thing', 't0', 'thing.rare', { i })] }));
  }
}

/** Pages through everything with `limit`, returning the positions seen and the number of calls. */
async function pageAll(store: StoreAdapter, base: Omit<EventScan, 'cursor' | 'wanted' | 'head' | 'instanceId'>, limit: number, limits: ScanLimits) {
  const head = (await store.projectionState(A)).position;
  const seen: number[] = [];
  let cursor = 0;
  for (let calls = 1; calls <= 100; calls++) {
    const page = await scanEvents(store, { instanceId: A, head, cursor, wanted: limit, ...base }, limits);
    expect(page.matches.length).toBeLessThanOrEqual(limit);
    seen.push(...page.matches.map((e) => e.position));
    if (page.endOfList) return { seen, calls };
    expect(page.cursor).not.toBe(cursor);
    cursor = page.cursor;
  }
  throw new Error('no end of list after 100 calls');
}

const all = (_e: StoredEvent) => true;
const rare = (e: StoredEvent) => e.type === 'thing.rare';

function describeScan(name: string, open: () => Promise<{ store: StoreAdapter; cleanup: () => Promise<void> }>) {
  describe(`event scan (${name})`, () => {
    let store: StoreAdapter;
    let cleanup: () => Promise<void>;
    let positions: number[];
    beforeAll(async () => {
      ({ store, cleanup } = await open());
      await seed(store);
      positions = (await store.readEvents(A, 0, 1000)).map((e) => e.position);
      expect(positions).toHaveLength(30);
    });
    afterAll(async () => cleanup());

    it.each([true, false])('asc=%s: pages of 4 cover every event once, in order', async (asc) => {
      const { seen } = await pageAll(store, { asc, matches: all }, 4, { batch: 7, budget: 1000 });
      expect(seen).toEqual(asc ? positions : [...positions].reverse());
    });

    it.each([true, false])('asc=%s: a budget of 5 stops early with a cursor that continues to every rare event', async (asc) => {
      const expected = (await store.readEvents(A, 0, 1000)).filter(rare).map((e) => e.position);
      expect(expected).toHaveLength(3);
      const { seen, calls } = await pageAll(store, { asc, matches: rare }, 100, { batch: 2, budget: 5 });
      expect(seen).toEqual(asc ? expected : [...expected].reverse());
      expect(calls).toBeGreaterThanOrEqual(6); // 30 events, at most 5 examined per call
      // control: with the default limits one call finds them all
      const { calls: one } = await pageAll(store, { asc, matches: rare }, 100, { batch: 500, budget: 20_000 });
      expect(one).toBe(1);
    });

    it.each([true, false])('asc=%s: a stream walk reads that stream only, paged by cursor', async (asc) => {
      const stream = (await store.readStream(A, 'thing', 't1')).map((e) => e.position);
      expect(stream).toHaveLength(10);
      const { seen } = await pageAll(store, { asc, matches: all, stream: { type: 'thing', id: 't1' } }, 3, { batch: 500, budget: 20_000 });
      expect(seen).toEqual(asc ? stream : [...stream].reverse());
    });

    it('descending from a cursor far beyond the head starts at the head', async () => {
      const head = positions.at(-1)!;
      const page = await scanEvents(store, { instanceId: A, head, cursor: Number.MAX_SAFE_INTEGER, wanted: 2, asc: false, matches: all }, { batch: 4, budget: 8 });
      expect(page.matches.map((e) => e.position)).toEqual([head, positions.at(-2)]);
    });

    it('reads only the instance it is given', async () => {
      const headB = (await store.projectionState(B)).position;
      const inB = await scanEvents(store, { instanceId: B, head: headB, cursor: 0, wanted: 100, asc: true, matches: all });
      expect(inB.matches.map((e) => e.instanceId)).toEqual([B, B, B, B, B]);
      const inA = await scanEvents(store, { instanceId: A, head: positions.at(-1)!, cursor: 0, wanted: 100, asc: true, matches: rare });
      expect(inA.matches.every((e) => e.instanceId === A)).toBe(true);
      expect(inA.matches).toHaveLength(3);
    });
  });
}

describeScan('lmdb', async () => tempLmdbStore('tessera-event-scan-'));

describeIfMet(await meet(POSTGRES), 'event scan on PostgreSQL', () => {
  describeScan('postgres', () => tempPostgresStore({ maxConnections: 2 }));
});
