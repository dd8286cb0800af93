/**
 * The StoreAdapter contract, as one suite every adapter runs (LMDB and PostgreSQL):
 * conditional appends that write all or nothing, unique claims, projected rows in the same
 * transaction, per-instance positions and isolation, TTL rows, projection state and meta.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppendRequest, NewEvent, RecordWrite, StoreAdapter, StoredEvent } from '../../actors/index.js';

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

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
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
        expect(await snapshot(B)).toEqual({ events: [], state: { position: 0, createdAt: 0 }, rows: [], names: [] });
        expect(await store.getRecord(B, 'orgs', 'o1')).toBeUndefined();
        expect(await store.findUnique(B, 'org.name', 'acme')).toBeUndefined();
        expect(await store.streamVersion(B, 'org', 'o1')).toBe(0);
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
