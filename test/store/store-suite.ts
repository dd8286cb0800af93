/**
 * The StoreAdapter contract, as one suite every adapter runs (LMDB and PostgreSQL):
 * conditional appends that write all or nothing, unique claims, projected rows in the same
 * transaction, per-instance positions and isolation, the instances with rows of a listed table,
 * TTL rows, projection state and meta, and whole-store dump/load (positions, heads, claims, live TTL rows kept; a non-empty target refused).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executionSetKind, OUTBOX_TABLE, type AppendRequest, type DumpEntry, type NewEvent, type RecordWrite, type StoreAdapter, type StoredEvent } from '../../actors/index.js';

export type OpenStore = () => Promise<{ store: StoreAdapter; cleanup: () => Promise<void> }>;

const A = 'inst-a';
const B = 'inst-b';
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

export function event(aggregateType: string, aggregateId: string, type: string, payload: unknown = {}): NewEvent {
  return { aggregateType, aggregateId, type, owner: { type: 'instance', id: A }, creator: 'user-1', payload };
}

export function append(instanceId: string, fields: Partial<AppendRequest>): AppendRequest {
  return { instanceId, createdAt: T0, expectations: [], events: [], project: () => [], ...fields };
}

export function expect0(aggregateType: string, aggregateId: string, expectedVersion = 0) {
  return { aggregateType, aggregateId, expectedVersion };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/**
 * Fills a store with a bit of everything a dump must carry: two instances, several streams,
 * a rename (released claim), a removed row, rich payloads, live and expired TTL rows, meta.
 */
export async function fillForDump(store: StoreAdapter, now = Date.now()): Promise<void> {
  const rich = { name: 'Acme ✓', big: 2n ** 60n, map: new Map([['k', 1]]), bytes: Buffer.from([1, 2, 3]), when: new Date(T0), list: [1, 'two', null] };
  const ok = async (request: AppendRequest) => expect((await store.append(request)).ok).toBe(true);
  await ok(append(A, {
    expectations: [expect0('org', 'o1'), expect0('user', 'u1')],
    events: [event('org', 'o1', 'org.added', rich), event('user', 'u1', 'user.added'), event('org', 'o1', 'org.changed', { name: 'Acme 2' })],
    claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }, { scope: 'user.username', value: 'ann', holder: 'u1' }],
    project: () => [{ table: 'orgs', id: 'o1', value: rich }, { table: 'users', id: 'u1', value: { name: 'ann' } }, { table: 'users', id: 'gone', value: 1 }],
  }));
  await ok(append(A, {
    createdAt: T0 + 7,
    expectations: [expect0('org', 'o1', 2)],
    events: [event('org', 'o1', 'org.changed', { name: 'Acme 3' })],
    releases: [{ scope: 'org.name', value: 'acme' }],
    claims: [{ scope: 'org.name', value: 'acme-3', holder: 'o1' }],
    project: () => [{ table: 'users', id: 'gone', value: null }],
  }));
  await ok(append(B, { createdAt: T0 + 9, expectations: [expect0('org', 'o9')], events: [event('org', 'o9', 'org.added')], project: () => [{ table: 'orgs', id: 'o9', value: { b: true } }] }));
  await store.ttl.put(A, 'refresh_tokens', 'rt1', { user: 'u1', scopes: ['openid'] }, now + HOUR);
  await store.ttl.put(B, 'codes', 'c1', 'code', now + 2 * HOUR);
  await store.ttl.put(A, 'codes', 'expired', 'old', now - 1);
  await store.putMeta('first-run', { instanceId: A });
  await store.putMeta('keys', [1, 2, 3]);
}

/** A dump in a canonical order (adapters emit different orders), for equality checks. */
export async function canonicalDump(store: StoreAdapter, now?: number): Promise<DumpEntry[]> {
  const entries = await collect(store.dump(now === undefined ? {} : { now }));
  const id = (e: DumpEntry): string => {
    switch (e.kind) {
      case 'event': return [e.kind, e.event.instanceId, String(e.event.position).padStart(12, '0')].join('\u0000');
      case 'head': return [e.kind, e.instanceId, e.aggregateType, e.aggregateId].join('\u0000');
      case 'position': return [e.kind, e.instanceId].join('\u0000');
      case 'record': return [e.kind, e.instanceId, e.table, e.id].join('\u0000');
      case 'unique': return [e.kind, e.instanceId, e.scope, e.value].join('\u0000');
      case 'ttl': return [e.kind, e.instanceId, e.table, e.key].join('\u0000');
      case 'meta': return [e.kind, e.key].join('\u0000');
    }
  };
  return entries.map((e) => [id(e), e] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** What a loaded copy must answer exactly as the original did (after fillForDump). */
export async function expectSameAnswers(copy: StoreAdapter, original: StoreAdapter): Promise<void> {
  for (const instanceId of [A, B]) {
    expect(await copy.readEvents(instanceId, 0, 100)).toEqual(await original.readEvents(instanceId, 0, 100));
    expect(await copy.projectionState(instanceId)).toEqual(await original.projectionState(instanceId));
  }
  expect(await copy.readEvents(A, 2, 100)).toEqual(await original.readEvents(A, 2, 100));
  expect((await copy.readEvents(A, 2, 100)).map((e) => e.position)).toEqual([3, 4]);
  expect(await copy.readStream(A, 'org', 'o1')).toEqual(await original.readStream(A, 'org', 'o1'));
  expect(await copy.streamVersion(A, 'org', 'o1')).toBe(3);
  expect(await copy.getRecord(A, 'orgs', 'o1')).toEqual(await original.getRecord(A, 'orgs', 'o1'));
  expect(await copy.getRecord(A, 'users', 'gone')).toBeUndefined();
  expect(await collect(copy.scanRecords(A, 'users'))).toEqual([{ name: 'ann' }]);
  expect(await copy.findUnique(A, 'org.name', 'acme-3')).toBe('o1');
  expect(await copy.findUnique(A, 'org.name', 'acme')).toBeUndefined();
  expect(await collect(copy.scanUnique(A, 'user.username'))).toEqual([{ value: 'ann', holder: 'u1' }]);
  expect(await copy.ttl.get(A, 'refresh_tokens', 'rt1')).toEqual({ user: 'u1', scopes: ['openid'] });
  expect(await copy.ttl.take(B, 'codes', 'c1')).toBe('code');
  expect(await copy.ttl.get(A, 'codes', 'expired')).toBeUndefined();
  expect(await copy.getMeta('first-run')).toEqual({ instanceId: A });
}

/** Appends on a loaded copy continue its streams and positions (the counters came along). */
export async function expectAppendsContinue(copy: StoreAdapter): Promise<void> {
  expect((await copy.append(append(A, { expectations: [expect0('org', 'o1', 2)], events: [event('org', 'o1', 'org.changed')] }))).ok).toBe(false);
  const next = await copy.append(append(A, { createdAt: T0 + 20, expectations: [expect0('org', 'o1', 3)], events: [event('org', 'o1', 'org.changed')] }));
  expect(next.ok && next.events.map((e) => [e.position, e.version])).toEqual([[5, 4]]);
  const taken = await copy.append(append(A, { expectations: [expect0('org', 'o2')], events: [event('org', 'o2', 'org.added')], claims: [{ scope: 'org.name', value: 'acme-3', holder: 'o2' }] }));
  expect(taken).toEqual({ ok: false, reason: 'unique', scope: 'org.name', value: 'acme-3', holder: 'o1' });
  // The sweeper finds copied TTL rows through the rebuilt expiry index.
  expect(await copy.ttl.sweep(Date.now() + 3 * HOUR)).toBe(1);
  expect(await copy.ttl.get(A, 'refresh_tokens', 'rt1')).toBeUndefined();
}

export function loadFrom<T>(items: readonly T[]): AsyncGenerator<T> {
  return fromArray(items);
}

export function describeStoreSuite(name: string, open: OpenStore): void {
  describe(`StoreAdapter contract: ${name}`, () => {
    let store: StoreAdapter;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await cleanup();
    });

    const snapshot = async (instanceId: string) => ({
      events: await store.readEvents(instanceId, 0, 10_000),
      state: await store.projectionState(instanceId),
      rows: await collect(store.scanRecords(instanceId, 'orgs')),
      names: await collect(store.scanUnique(instanceId, 'org.name')),
    });

    describe('append and read back', () => {
      it('assigns per-stream versions and per-instance positions and round-trips every field', async () => {
        const payload = { name: 'Acme ✓', tags: ['a', 'b'], nested: { n: 1.5, yes: true, none: null } };
        const first = await store.append(
          append(A, {
            expectations: [expect0('org', 'o1')],
            events: [event('org', 'o1', 'org.added', payload), event('org', 'o1', 'org.changed', { name: 'Acme 2' })],
          }),
        );
        const second = await store.append(
          append(A, { createdAt: T0 + 5, expectations: [expect0('user', 'u1')], events: [event('user', 'u1', 'user.added')] }),
        );
        const expected: StoredEvent[] = [
          { ...event('org', 'o1', 'org.added', payload), instanceId: A, version: 1, position: 1, createdAt: T0 },
          { ...event('org', 'o1', 'org.changed', { name: 'Acme 2' }), instanceId: A, version: 2, position: 2, createdAt: T0 },
          { ...event('user', 'u1', 'user.added'), instanceId: A, version: 1, position: 3, createdAt: T0 + 5 },
        ];
        expect(first).toEqual({ ok: true, events: expected.slice(0, 2) });
        expect(second).toEqual({ ok: true, events: expected.slice(2) });
        expect(await store.readEvents(A, 0, 100)).toEqual(expected);
        expect(await store.readEvents(A, 1, 1)).toEqual([expected[1]]);
        expect(await store.readEvents(A, 3, 100)).toEqual([]);
        expect(await store.readStream(A, 'org', 'o1')).toEqual(expected.slice(0, 2));
        expect(await store.streamVersion(A, 'org', 'o1')).toBe(2);
        expect(await store.streamVersion(A, 'org', 'missing')).toBe(0);
        expect(await store.readStream(A, 'org', 'missing')).toEqual([]);
      });

      it('gives consecutive versions to events of one append on two streams', async () => {
        const result = await store.append(
          append(A, {
            expectations: [expect0('org', 'o1'), expect0('user', 'u1')],
            events: [event('org', 'o1', 'org.added'), event('user', 'u1', 'user.added'), event('org', 'o1', 'org.changed')],
          }),
        );
        expect(result.ok && result.events.map((e) => [e.aggregateId, e.version, e.position])).toEqual([
          ['o1', 1, 1],
          ['u1', 1, 2],
          ['o1', 2, 3],
        ]);
      });

      it('reports projection state as the newest position and time (0/0 when empty)', async () => {
        expect(await store.projectionState(A)).toEqual({ position: 0, createdAt: 0 });
        await store.append(append(A, { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')] }));
        await store.append(
          append(A, { createdAt: T0 + 9, expectations: [expect0('org', 'o1', 1)], events: [event('org', 'o1', 'org.changed')] }),
        );
        expect(await store.projectionState(A)).toEqual({ position: 2, createdAt: T0 + 9 });
      });

      it('reads the rows and stream versions of many aggregates at once, as getRecord and streamVersion answer each', async () => {
        await store.append(append(A, {
          expectations: [expect0('org', 'o1'), expect0('user', 'u1'), expect0('user', 'gone')],
          events: [event('org', 'o1', 'org.added'), event('org', 'o1', 'org.changed'), event('user', 'u1', 'user.added'), event('user', 'gone', 'user.added')],
          project: () => [{ table: 'orgs', id: 'o1', value: { name: 'acme' } }, { table: 'users', id: 'u1', value: { name: 'ann' } }],
        }));
        await store.append(append(B, { expectations: [expect0('user', 'u2')], events: [event('user', 'u2', 'user.added')], project: () => [{ table: 'users', id: 'u2', value: { b: true } }] }));
        const at = (table: string, aggregateType: string, aggregateId: string) => ({ table, aggregateType, aggregateId });
        const asked = [at('users', 'user', 'u1'), at('orgs', 'org', 'o1'), at('users', 'user', 'gone'), at('users', 'user', 'nobody'), at('users', 'user', 'u2'), at('users', 'user', 'u1'), at('users', 'user', 'nul\u0000id')];
        const each = await Promise.all(asked.map(async (a) => ({ record: await store.getRecord(A, a.table, a.aggregateId), version: await store.streamVersion(A, a.aggregateType, a.aggregateId) })));
        // A stream without a row (removed, or never projected) has its version; another instance's row is absent.
        expect(each).toEqual([
          { record: { name: 'ann' }, version: 1 },
          { record: { name: 'acme' }, version: 2 },
          { record: undefined, version: 1 },
          { record: undefined, version: 0 },
          { record: undefined, version: 0 },
          { record: { name: 'ann' }, version: 1 },
          { record: undefined, version: 0 },
        ]);
        expect(await store.readAggregates(A, asked)).toEqual(each);
        expect(await store.readAggregates(A, [])).toEqual([]);
        await expect(store.readAggregates('~x', asked)).rejects.toThrow('instance id');
      });
    });

    describe('conditional appends', () => {
      beforeEach(async () => {
        await store.append(
          append(A, { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added'), event('org', 'o1', 'org.changed')] }),
        );
      });

      it('refuses a stale expectation and writes nothing (no events, rows or claims)', async () => {
        const before = await snapshot(A);
        const result = await store.append(
          append(A, {
            expectations: [expect0('org', 'o1', 1)],
            events: [event('org', 'o1', 'org.changed')],
            claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }],
            project: () => [{ table: 'orgs', id: 'o1', value: { name: 'acme' } }],
          }),
        );
        expect(result).toEqual({ ok: false, reason: 'conflict', aggregateType: 'org', aggregateId: 'o1', actualVersion: 2 });
        expect(await snapshot(A)).toEqual(before);
        expect(await store.findUnique(A, 'org.name', 'acme')).toBeUndefined();
      });

      it('refuses expectedVersion 0 on an existing stream', async () => {
        const result = await store.append(append(A, { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')] }));
        expect(result).toEqual({ ok: false, reason: 'conflict', aggregateType: 'org', aggregateId: 'o1', actualVersion: 2 });
        expect(await store.streamVersion(A, 'org', 'o1')).toBe(2);
      });

      it('checks expectations on streams that are read but not written', async () => {
        const result = await store.append(
          append(A, { expectations: [expect0('org', 'o1', 1), expect0('user', 'u1')], events: [event('user', 'u1', 'user.added')] }),
        );
        expect(result).toMatchObject({ ok: false, reason: 'conflict', aggregateId: 'o1', actualVersion: 2 });
        expect(await store.streamVersion(A, 'user', 'u1')).toBe(0);
      });

      it('lets exactly one of two racing appends with the same expectation win', async () => {
        const racer = (id: string) =>
          store.append(append(A, { expectations: [expect0('org', 'o1', 2)], events: [event('org', 'o1', 'org.changed', { id })] }));
        const results = await Promise.all([racer('x'), racer('y')]);
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok)).toEqual([
          { ok: false, reason: 'conflict', aggregateType: 'org', aggregateId: 'o1', actualVersion: 3 },
        ]);
        expect(await store.streamVersion(A, 'org', 'o1')).toBe(3);
      });

      it('writes nothing when the projection throws', async () => {
        const before = await snapshot(A);
        const failing = append(A, {
          expectations: [expect0('org', 'o1', 2)],
          events: [event('org', 'o1', 'org.changed')],
          claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }],
          project: () => {
            throw new Error('projection bug');
          },
        });
        await expect(store.append(failing)).rejects.toThrow('projection bug');
        expect(await snapshot(A)).toEqual(before);
        expect(await store.streamVersion(A, 'org', 'o1')).toBe(2);
      });
    });

    // PostgreSQL commits concurrent appends of one instance together (group commit): each must
    // still be decided on its own, against what the appends before it left.
    describe('many concurrent appends of one instance', () => {
      it('accepts each on its own stream with gap-free positions matching what was read back', async () => {
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            store.append(append(A, { createdAt: T0 + i, expectations: [expect0('org', `c${i}`)], events: [event('org', `c${i}`, 'org.added', { i }), event('org', `c${i}`, 'org.changed')], project: (stored) => [{ table: 'orgs', id: `c${i}`, value: { at: stored[1]!.position } }] })),
          ),
        );
        expect(results.every((r) => r.ok)).toBe(true);
        const positions = results.flatMap((r) => (r.ok ? r.events.map((e) => e.position) : [])).sort((a, b) => a - b);
        expect(positions).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
        const read = await store.readEvents(A, 0, 1000);
        expect(read.map((e) => [e.aggregateId, e.version, e.position])).toEqual(results.flatMap((r) => (r.ok ? r.events.map((e) => [e.aggregateId, e.version, e.position]) : [])).sort((a, b) => (a[2] as number) - (b[2] as number)));
        for (let i = 0; i < 40; i += 1) {
          const result = results[i]!;
          expect(await store.getRecord(A, 'orgs', `c${i}`)).toEqual({ at: result.ok ? result.events[1]!.position : -1 });
        }
        const last = read[read.length - 1]!;
        expect(await store.projectionState(A)).toEqual({ position: 80, createdAt: last.createdAt });
      });

      it('decides racing appends to one stream, and racing claims of one value, one by one', async () => {
        await store.append(append(A, { expectations: [expect0('org', 's1')], events: [event('org', 's1', 'org.added')] }));
        const sameStream = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.append(append(A, { expectations: [expect0('org', 's1', 1)], events: [event('org', 's1', 'org.changed', { i })] }))),
        );
        expect(sameStream.filter((r) => r.ok)).toHaveLength(1);
        expect(sameStream.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'conflict' && r.actualVersion === 2)).toBe(true);
        const sameValue = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.append(append(A, { expectations: [expect0('user', `v${i}`)], events: [event('user', `v${i}`, 'user.added')], claims: [{ scope: 'user.username', value: 'popular', holder: `v${i}` }] }))),
        );
        const winners = sameValue.filter((r) => r.ok);
        expect(winners).toHaveLength(1);
        const holder = await store.findUnique(A, 'user.username', 'popular');
        expect(sameValue.filter((r) => !r.ok)).toEqual(Array(9).fill({ ok: false, reason: 'unique', scope: 'user.username', value: 'popular', holder }));
        expect(await store.streamVersion(A, 'org', 's1')).toBe(2);
        expect((await store.readEvents(A, 0, 1000)).map((e) => e.position)).toEqual([1, 2, 3]);
      });

      it('fails only the append whose projection throws, and frees a value released by an earlier append', async () => {
        await store.append(append(A, { expectations: [expect0('org', 'r1')], events: [event('org', 'r1', 'org.added')], claims: [{ scope: 'org.name', value: 'taken', holder: 'r1' }] }));
        const release = store.append(append(A, { expectations: [expect0('org', 'r1', 1)], events: [event('org', 'r1', 'org.changed')], releases: [{ scope: 'org.name', value: 'taken' }] }));
        const failing = store.append(append(A, { expectations: [expect0('org', 'bad')], events: [event('org', 'bad', 'org.added')], project: () => { throw new Error('projection bug'); } }));
        const others = Array.from({ length: 5 }, (_, i) => store.append(append(A, { expectations: [expect0('org', `ok${i}`)], events: [event('org', `ok${i}`, 'org.added')] })));
        const [released, failed, ...rest] = await Promise.allSettled([release, failing, ...others]);
        expect(released).toMatchObject({ status: 'fulfilled', value: { ok: true } });
        expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'projection bug' } });
        expect(rest.every((r) => r.status === 'fulfilled' && r.value.ok)).toBe(true);
        expect(await store.streamVersion(A, 'org', 'bad')).toBe(0);
        expect(await store.findUnique(A, 'org.name', 'taken')).toBeUndefined();
        const claimed = await store.append(append(A, { expectations: [expect0('org', 'r2')], events: [event('org', 'r2', 'org.added')], claims: [{ scope: 'org.name', value: 'taken', holder: 'r2' }] }));
        expect(claimed.ok).toBe(true);
        expect((await store.readEvents(A, 0, 1000)).map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      });
    });

    describe('unique claims', () => {
      const claimName = (orgId: string, value: string, extra: Partial<AppendRequest> = {}) =>
        append(A, {
          expectations: [expect0('org', orgId)],
          events: [event('org', orgId, 'org.added')],
          claims: [{ scope: 'org.name', value, holder: orgId }],
          ...extra,
        });

      it('refuses a value held by another holder and writes nothing', async () => {
        expect((await store.append(claimName('o1', 'acme'))).ok).toBe(true);
        const before = await snapshot(A);
        const result = await store.append(claimName('o2', 'acme', { project: () => [{ table: 'orgs', id: 'o2', value: {} }] }));
        expect(result).toEqual({ ok: false, reason: 'unique', scope: 'org.name', value: 'acme', holder: 'o1' });
        expect(await snapshot(A)).toEqual(before);
        expect(await store.streamVersion(A, 'org', 'o2')).toBe(0);
      });

      it('accepts a claim the same holder already holds, and finds values by scope', async () => {
        await store.append(claimName('o1', 'acme'));
        const again = await store.append(
          append(A, {
            expectations: [expect0('org', 'o1', 1)],
            events: [event('org', 'o1', 'org.changed')],
            claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }],
          }),
        );
        expect(again.ok).toBe(true);
        expect(await store.findUnique(A, 'org.name', 'acme')).toBe('o1');
        expect(await store.findUnique(A, 'org.domain', 'acme')).toBeUndefined();
      });

      it('frees a value on release, also for a claim by another holder in the same append', async () => {
        await store.append(claimName('o1', 'acme'));
        const rename = await store.append(
          append(A, {
            expectations: [expect0('org', 'o1', 1), expect0('org', 'o2')],
            events: [event('org', 'o1', 'org.changed'), event('org', 'o2', 'org.added')],
            releases: [{ scope: 'org.name', value: 'acme' }],
            claims: [
              { scope: 'org.name', value: 'acme', holder: 'o2' },
              { scope: 'org.name', value: 'acme-old', holder: 'o1' },
            ],
          }),
        );
        expect(rename.ok).toBe(true);
        expect(await collect(store.scanUnique(A, 'org.name'))).toEqual([
          { value: 'acme', holder: 'o2' },
          { value: 'acme-old', holder: 'o1' },
        ]);
        await store.append(
          append(A, { expectations: [expect0('org', 'o1', 2)], releases: [{ scope: 'org.name', value: 'acme-old' }] }),
        );
        expect(await store.findUnique(A, 'org.name', 'acme-old')).toBeUndefined();
      });
    });

    describe('projected rows', () => {
      it('writes and deletes rows in the append, seeing the assigned positions', async () => {
        const seen: StoredEvent[][] = [];
        const project = (stored: readonly StoredEvent[]): RecordWrite[] => {
          seen.push([...stored]);
          const last = stored[stored.length - 1];
          return [{ table: 'orgs', id: last?.aggregateId ?? '', value: { sequence: last?.position, version: last?.version } }];
        };
        await store.append(append(A, { expectations: [expect0('org', 'o2')], events: [event('org', 'o2', 'org.added')], project }));
        const second = await store.append(
          append(A, { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')], project }),
        );
        expect(seen.map((s) => s.map((e) => e.position))).toEqual([[1], [2]]);
        expect(second.ok && seen[1]).toEqual(second.ok && second.events);
        expect(await store.getRecord(A, 'orgs', 'o1')).toEqual({ sequence: 2, version: 1 });
        expect(await collect(store.scanRecords(A, 'orgs'))).toEqual([
          { sequence: 2, version: 1 },
          { sequence: 1, version: 1 },
        ]);
        await store.append(
          append(A, {
            expectations: [expect0('org', 'o1', 1)],
            events: [event('org', 'o1', 'org.removed')],
            project: () => [
              { table: 'orgs', id: 'o1', value: null },
              { table: 'orgs', id: 'o2', value: undefined },
            ],
          }),
        );
        expect(await store.getRecord(A, 'orgs', 'o1')).toBeUndefined();
        expect(await collect(store.scanRecords(A, 'orgs'))).toEqual([]);
      });

      it('scans a table in id order, past page boundaries, and only that table', async () => {
        const ids = Array.from({ length: 700 }, (_, i) => `id-${String((i * 389) % 700).padStart(4, '0')}`);
        const rows = ids.map((id) => ({ table: 'orgs', id, value: { id } }));
        rows.push({ table: 'orgsx', id: 'a', value: { id: 'other table' } }, { table: 'org', id: 'z', value: { id: 'other table' } });
        await store.append(append(A, { project: () => rows }));
        const scanned = await collect(store.scanRecords(A, 'orgs'));
        expect(scanned).toEqual([...ids].sort().map((id) => ({ id })));
      });
    });

    describe('instances with rows of a listed table', () => {
      const outbox = (id: string, value: unknown = { to: id }) => ({ table: OUTBOX_TABLE, id, value });

      it('lists the instances that have a row of the table, in id order, until their last row is removed', async () => {
        await store.append(append(B, { project: () => [outbox('m1'), outbox('m2')] }));
        await store.append(append(A, { project: () => [outbox('m1'), { table: 'orgs', id: 'o1', value: {} }] }));
        await store.append(append('inst-c', { project: () => [{ table: executionSetKind.table, id: 'inst-c', value: { entries: {} } }] }));
        await store.append(append('inst-d', { project: () => [{ table: 'orgs', id: 'o1', value: {} }] }));
        expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual([A, B]);
        expect(await collect(store.instancesWithRows(executionSetKind.table))).toEqual(['inst-c']);
        // B keeps its listing while one of its two rows is left; overwriting a row keeps it too.
        await store.append(append(B, { project: () => [outbox('m1', null), outbox('m2', { to: 'again' })] }));
        expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual([A, B]);
        await store.append(append(B, { project: () => [{ table: OUTBOX_TABLE, id: 'm2', value: undefined }] }));
        expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual([A]);
        expect(await collect(store.scanRecords(B, OUTBOX_TABLE))).toEqual([]);
        // An append that fails lists nothing.
        const refused = await store.append(append('inst-e', { expectations: [expect0('org', 'o1', 3)], events: [event('org', 'o1', 'org.changed')], project: () => [outbox('m1')] }));
        expect(refused.ok).toBe(false);
        expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual([A]);
      });

      it('lists more instances than one page, and refuses a table that is not listed', async () => {
        const ids = Array.from({ length: 300 }, (_, i) => `inst-${String((i * 7) % 300).padStart(3, '0')}`);
        for (const instanceId of ids) await store.append(append(instanceId, { project: () => [outbox('m1'), outbox('m2')] }));
        expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual([...ids].sort());
        await store.append(append(A, { project: () => [{ table: 'orgs', id: 'o1', value: {} }] }));
        await expect(collect(store.instancesWithRows('orgs'))).rejects.toThrow('not in LISTED_TABLES');
      });

      it('lists the rows a load writes', async () => {
        await store.append(append(A, { project: () => [outbox('m1'), { table: executionSetKind.table, id: A, value: { entries: {} } }] }));
        await store.append(append(B, { project: () => [outbox('m1')] }));
        const copy = await open();
        try {
          await copy.store.load(store.dump());
          expect(await collect(copy.store.instancesWithRows(OUTBOX_TABLE))).toEqual([A, B]);
          expect(await collect(copy.store.instancesWithRows(executionSetKind.table))).toEqual([A]);
        } finally {
          await copy.cleanup();
        }
      });
    });

    describe('tenant isolation', () => {
      it('never shows one instance the events, rows, claims or ttl rows of another', async () => {
        await store.append(
          append(A, {
            expectations: [expect0('org', 'o1')],
            events: [event('org', 'o1', 'org.added')],
            claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }],
            project: () => [{ table: 'orgs', id: 'o1', value: { name: 'acme' } }],
          }),
        );
        await store.ttl.put(A, 'codes', 'c1', { code: 1 }, Date.now() + HOUR);
        // each read beside its positive control: the owning instance A finds what B must not
        expect((await snapshot(A)).events).toHaveLength(1);
        expect(await snapshot(B)).toEqual({ events: [], state: { position: 0, createdAt: 0 }, rows: [], names: [] });
        expect(await store.getRecord(A, 'orgs', 'o1')).toEqual({ name: 'acme' });
        expect(await store.getRecord(B, 'orgs', 'o1')).toBeUndefined();
        expect(await store.findUnique(A, 'org.name', 'acme')).toBe('o1');
        expect(await store.findUnique(B, 'org.name', 'acme')).toBeUndefined();
        expect(await store.streamVersion(A, 'org', 'o1')).toBe(1);
        expect(await store.streamVersion(B, 'org', 'o1')).toBe(0);
        expect(await store.readStream(A, 'org', 'o1')).toHaveLength(1);
        expect(await store.readStream(B, 'org', 'o1')).toEqual([]);
        expect(await store.ttl.get(B, 'codes', 'c1')).toBeUndefined();
        expect(await store.ttl.take(B, 'codes', 'c1')).toBeUndefined();
        expect(await store.ttl.get(A, 'codes', 'c1')).toEqual({ code: 1 });

        const inB = await store.append(
          append(B, {
            expectations: [expect0('org', 'o1')],
            events: [event('org', 'o1', 'org.added')],
            claims: [{ scope: 'org.name', value: 'acme', holder: 'o1-b' }],
          }),
        );
        expect(inB.ok && inB.events.map((e) => [e.instanceId, e.position, e.version])).toEqual([[B, 1, 1]]);
        expect(await store.findUnique(A, 'org.name', 'acme')).toBe('o1');
      });
    });

    describe('ttl rows', () => {
      it('puts, overwrites, gets and deletes', async () => {
        const later = Date.now() + HOUR;
        await store.ttl.put(A, 'sessions', 's1', { user: 'u1' }, later);
        expect(await store.ttl.get(A, 'sessions', 's1')).toEqual({ user: 'u1' });
        await store.ttl.put(A, 'sessions', 's1', { user: 'u2' }, later + 1);
        expect(await store.ttl.get(A, 'sessions', 's1')).toEqual({ user: 'u2' });
        await store.ttl.delete(A, 'sessions', 's1');
        expect(await store.ttl.get(A, 'sessions', 's1')).toBeUndefined();
        await store.ttl.delete(A, 'sessions', 'never-there');
      });

      it('hides expired rows before any sweep', async () => {
        await store.ttl.put(A, 'codes', 'old', { code: 1 }, Date.now() - 1);
        expect(await store.ttl.get(A, 'codes', 'old')).toBeUndefined();
        expect(await store.ttl.take(A, 'codes', 'old')).toBeUndefined();
      });

      it('takes a row exactly once, also when two takes race', async () => {
        await store.ttl.put(A, 'codes', 'c1', { code: 1 }, Date.now() + HOUR);
        expect(await store.ttl.take(A, 'codes', 'c1')).toEqual({ code: 1 });
        expect(await store.ttl.take(A, 'codes', 'c1')).toBeUndefined();
        await store.ttl.put(A, 'codes', 'c2', { code: 2 }, Date.now() + HOUR);
        const both = await Promise.all([store.ttl.take(A, 'codes', 'c2'), store.ttl.take(A, 'codes', 'c2')]);
        expect(both.filter((v) => v !== undefined)).toEqual([{ code: 2 }]);
      });

      it('sweeps expired rows of every instance and counts them', async () => {
        const now = Date.now();
        await store.ttl.put(A, 'codes', 'a1', 1, now - 3);
        await store.ttl.put(A, 'tokens', 'a2', 2, now - 2);
        await store.ttl.put(B, 'codes', 'b1', 3, now - 1);
        await store.ttl.put(A, 'codes', 'live', 4, now + HOUR);
        await store.ttl.put(A, 'codes', 'renewed', 5, now - 5);
        await store.ttl.put(A, 'codes', 'renewed', 6, now + HOUR);
        await store.ttl.put(A, 'codes', 'deleted', 7, now - 4);
        await store.ttl.delete(A, 'codes', 'deleted');
        expect(await store.ttl.sweep(now)).toBe(3);
        expect(await store.ttl.sweep(now)).toBe(0);
        expect(await store.ttl.get(A, 'codes', 'live')).toBe(4);
        expect(await store.ttl.get(A, 'codes', 'renewed')).toBe(6);
        expect(await store.ttl.sweep(now + 2 * HOUR)).toBe(2);
        expect(await store.ttl.get(A, 'codes', 'live')).toBeUndefined();
      });
    });

    describe('dump and load', () => {
      it('copies everything into an empty store of the same kind, which answers and appends as the original', async () => {
        await fillForDump(store);
        const dumped = await canonicalDump(store);
        expect(dumped.filter((e) => e.kind === 'ttl').map((e) => e.kind === 'ttl' && e.key)).toEqual(['rt1', 'c1']);
        const copy = await open();
        try {
          const progress: number[] = [];
          const counts = await copy.store.load(store.dump(), { onProgress: (c) => progress.push(c.event) });
          expect(counts).toEqual({ event: 5, head: 3, position: 2, record: 3, unique: 2, ttl: 2, meta: 2 });
          expect(progress.at(-1)).toBe(5);
          expect(await canonicalDump(copy.store)).toEqual(dumped);
          await expectSameAnswers(copy.store, store);
          await expectAppendsContinue(copy.store);
        } finally {
          await copy.cleanup();
        }
      });

      it('refuses to load into a store that is not empty, writing nothing', async () => {
        await store.putMeta('marker', 1);
        const entries: DumpEntry[] = [{ kind: 'meta', key: 'other', value: 2 }, { kind: 'position', instanceId: A, position: 9, createdAt: T0 }];
        await expect(store.load(loadFrom(entries))).rejects.toThrow('is not empty');
        expect(await store.getMeta('other')).toBeUndefined();
        expect(await store.projectionState(A)).toEqual({ position: 0, createdAt: 0 });
      });

      it('streams a dump larger than one page and one load batch', async () => {
        const rows = Array.from({ length: 1300 }, (_, i) => ({ table: 'orgs', id: `r${String(i).padStart(5, '0')}`, value: { i } }));
        await store.append(append(A, { project: () => rows }));
        const copy = await open();
        try {
          const counts = await copy.store.load(store.dump());
          expect(counts.record).toBe(1300);
          expect(await collect(copy.store.scanRecords(A, 'orgs'))).toEqual(rows.map((r) => r.value));
        } finally {
          await copy.cleanup();
        }
      });
    });

    describe('node meta', () => {
      it('stores and overwrites small settings', async () => {
        expect(await store.getMeta('first-run')).toBeUndefined();
        await store.putMeta('first-run', { at: T0 });
        expect(await store.getMeta('first-run')).toEqual({ at: T0 });
        await store.putMeta('first-run', 'done');
        expect(await store.getMeta('first-run')).toBe('done');
      });
    });
  });
}
