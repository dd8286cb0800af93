/**
 * The LMDB adapter: the shared contract suite in a temporary directory, plus what only LMDB
 * has: the on-disk key layout (tenant first), reopen durability, key-part validation,
 * injected expiry clock, batched sweeps and write failures that roll back.
 */
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, executionSetKind, OUTBOX_TABLE, type StoreAdapter } from '../../actors/index.js';
import { openLmdbStore, type LmdbStoreOptions } from '../../src/store/lmdb-store.js';
import { LISTING, listingKey, metaKey, recordKey, STRUCTURES_META, summaryKey } from '../../src/store/keys.js';
import { LISTING_META } from '../../src/store/lmdb-listing.js';
import { describeIndexSuite, TEST_CATALOG, thing, writeThings } from './index-suite.js';
import { append, collect, describeStoreSuite, event, expect0 } from './store-suite.js';
import { tempLmdbStore } from './temp-stores.js';
import { tempDir } from '../temp-dirs.js';

const openIndexed = async (options: Partial<LmdbStoreOptions> = {}) => tempLmdbStore('tessera-lmdb-', { catalog: TEST_CATALOG, ...options });

describeStoreSuite('lmdb', () => openIndexed());
describeIndexSuite('lmdb', () => openIndexed());
// CONTAINS / ENDS_WITH without term columns: the walk of the index keys (term-columns.test.ts compares both).
describeIndexSuite('lmdb, term columns off', () => openIndexed({ termColumns: { maxEntries: 0 } }));

describe('lmdb store specifics', () => {
  const open_: StoreAdapter[] = [];
  const openAt = (dir: string, options: Partial<LmdbStoreOptions> = {}) => {
    const store = openLmdbStore({ path: dir, ...options });
    open_.push(store);
    return store;
  };
  const fresh = (options: Partial<LmdbStoreOptions> = {}) => {
    const dir = tempDir('tessera-lmdb-');
    return { dir, store: openAt(dir, options) };
  };
  afterEach(async () => {
    await Promise.all(open_.splice(0).map((s) => s.close()));
  });

  it('keeps every key tenant-first (or under a ~ node prefix) on disk', async () => {
    const { dir, store } = fresh();
    for (const instanceId of ['inst-a', '_system']) {
      await store.append(
        append(instanceId, {
          expectations: [expect0('org', 'o1')],
          events: [event('org', 'o1', 'org.added')],
          claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }],
          project: () => [{ table: 'orgs', id: 'o1', value: {} }],
        }),
      );
      await store.ttl.put(instanceId, 'codes', 'c1', 1, Date.now() + 1000);
    }
    await store.putMeta('m', 1);
    await store.close();
    const raw = open(dir, { useVersions: true, readOnly: true });
    const firsts = new Set(Array.from(raw.getKeys({}), (key) => (Array.isArray(key) ? key[0] : key)));
    await raw.close();
    expect([...firsts].sort()).toEqual(['_system', 'inst-a', '~meta', '~ttl']);
  });

  it('writes a parent row\'s sub-rows without a list of their ids (the previous row says which it had)', async () => {
    const { dir, store } = fresh({ catalog: TEST_CATALOG });
    await writeThings(store, 'inst-a', [thing('t1', 'One', 'o1', 10, ['x', 'y'])]);
    await writeThings(store, 'inst-a', [thing('t1', 'One', 'o1', 10, ['y'])]);
    expect((await store.readIndex('inst-a', { table: 'thing_tags', index: 'tag', limit: 10 })).map((e) => e.id)).toEqual(['t1/y']);
    await store.close();
    const raw = open(dir, { useVersions: true, readOnly: true });
    const summaryTables = new Set(Array.from(raw.getKeys({}), (key) => (Array.isArray(key) && key[1] === 'x' ? String(key[2]) : undefined)).filter((t) => t !== undefined));
    await raw.close();
    // Positive control: the sub-rows' own summaries are there.
    expect([...summaryTables].sort()).toEqual(['thing_tag_notes', 'thing_tags', 'things']);
  });

  it('writes values with shared msgpack structures (smaller than plain msgpack), reads them after a reopen, and reads values written without them', async () => {
    const dir = tempDir('tessera-lmdb-');
    // A data directory written before: a plain msgpack map, no structures.
    const old = { username: 'old', profile: { givenName: 'Old', familyName: 'Row' } };
    const plain = open(dir, { useVersions: true });
    await plain.put(recordKey('i', 't', 'old'), old);
    await plain.close();
    const store = openAt(dir);
    expect(await store.getRecord('i', 't', 'old')).toEqual(old);
    const rows = Array.from({ length: 3 }, (_, n) => ({ username: `user${n}`, profile: { givenName: 'Given', familyName: `Family ${n}` }, email: { address: `user${n}@example.com`, verified: false } }));
    for (const [n, row] of rows.entries()) {
      await store.append(append('i', { expectations: [expect0('user', `u${n}`)], events: [event('user', `u${n}`, 'user.added', row)], project: () => [{ table: 't', id: `u${n}`, value: row }] }));
    }
    const dumped = [];
    for await (const entry of store.dump()) dumped.push(entry);
    await store.close();
    // The same rows as plain msgpack (lmdb-js without structures), in a scratch directory.
    const scratch = tempDir('tessera-lmdb-');
    const plainCopy = open(scratch, { useVersions: true });
    await plainCopy.put(recordKey('i', 't', 'old'), old);
    for (const [n, row] of rows.entries()) await plainCopy.put(recordKey('i', 't', `u${n}`), row);
    await plainCopy.close();
    const sizes = (at: string) => {
      const raw = open(at, { useVersions: true, readOnly: true, encoding: 'binary' });
      const size = (id: string) => (raw.getBinary(recordKey('i', 't', id)) as Buffer).length;
      const result = { old: size('old'), rows: rows.map((_, n) => size(`u${n}`)), structures: raw.getBinary(metaKey(STRUCTURES_META))?.length ?? 0 };
      raw.close();
      return result;
    };
    const stored = sizes(dir);
    const plainSizes = sizes(scratch);
    // Control: the old row is stored as plain msgpack wrote it; the store's rows are smaller.
    expect(stored.old).toBe(plainSizes.old);
    for (const [n, size] of stored.rows.entries()) expect(size).toBeLessThan(plainSizes.rows[n]! - 30);
    expect(stored.structures).toBeGreaterThan(0);
    expect(plainSizes.structures).toBe(0);
    // The structures describe this file's encoding, not the node's data: a dump leaves them out.
    expect(dumped.filter((e) => e.kind === 'meta')).toEqual([]);
    const again = openAt(dir);
    for (const [n, row] of rows.entries()) expect(await again.getRecord('i', 't', `u${n}`)).toEqual(row);
    expect((await again.readEvents('i', 0, 10)).map((e) => e.payload)).toEqual(rows);
    expect(await again.getRecord('i', 't', 'old')).toEqual(old);
  });

  it('stores a repeated term list of a summary as the earlier index\'s position ([scope] as -1), and moves index entries when the terms part', async () => {
    const { dir, store } = fresh({ catalog: TEST_CATALOG });
    const find = async (index: string, equals: string) => (await store.readIndex('inst-a', { table: 'things', index, equals, limit: 10 })).map((e) => e.id);
    const storedSummary = async () => {
      const raw = open(dir, { useVersions: true, readOnly: true });
      const value = raw.get(summaryKey('inst-a', 'things', 't1'));
      await raw.close();
      return value;
    };
    // name_ci equals name (position 0), the tag list equals [scope].
    await writeThings(store, 'inst-a', [thing('t1', 'alpha', 'o1', 10, ['o1'])]);
    expect(await storedSummary()).toEqual(['o1', [['alpha'], 0, ['0000000000000010'], -1]]);
    expect(await find('name', 'alpha')).toEqual(['t1']);
    expect(await find('name_ci', 'alpha')).toEqual(['t1']);
    expect(await find('tag', 'o1')).toEqual(['t1']);
    // The terms part: name changes, name_ci stays, the tag moves.
    await writeThings(store, 'inst-a', [thing('t1', 'Alpha', 'o1', 10, ['x'])]);
    expect(await storedSummary()).toEqual(['o1', [['Alpha'], ['alpha'], ['0000000000000010'], ['x']]]);
    expect(await find('name', 'alpha')).toEqual([]);
    expect(await find('name', 'Alpha')).toEqual(['t1']);
    expect(await find('name_ci', 'alpha')).toEqual(['t1']);
    expect(await find('tag', 'o1')).toEqual([]);
    expect(await find('tag', 'x')).toEqual(['t1']);
    // And back: the entries written under references are removed through them.
    await writeThings(store, 'inst-a', [thing('t1', 'beta', 'o1', 10, ['o1'])]);
    await writeThings(store, 'inst-a', [thing('t1', 'gamma', 'o1', 10, [])]);
    expect(await find('name', 'beta')).toEqual([]);
    expect(await find('name_ci', 'beta')).toEqual([]);
    expect(await find('name_ci', 'gamma')).toEqual(['t1']);
    expect(await find('tag', 'o1')).toEqual([]);
  });

  it('keeps events, rows, claims, ttl rows and meta across a reopen', async () => {
    const { dir, store } = fresh();
    await store.append(
      append('i', {
        expectations: [expect0('org', 'o1')],
        events: [event('org', 'o1', 'org.added', { n: 1 })],
        claims: [{ scope: 's', value: 'v', holder: 'o1' }],
        project: () => [{ table: 't', id: 'o1', value: { n: 1 } }],
      }),
    );
    await store.ttl.put('i', 'codes', 'c', 'code', Date.now() + 60_000);
    await store.putMeta('k', 'v');
    await store.close();
    const again = openAt(dir);
    expect(await again.streamVersion('i', 'org', 'o1')).toBe(1);
    expect((await again.readEvents('i', 0, 10)).map((e) => e.payload)).toEqual([{ n: 1 }]);
    expect(await again.getRecord('i', 't', 'o1')).toEqual({ n: 1 });
    expect(await again.findUnique('i', 's', 'v')).toBe('o1');
    expect(await again.ttl.get('i', 'codes', 'c')).toBe('code');
    expect(await again.getMeta('k')).toBe('v');
  });

  it('group-commits ttl puts: puts made while a batch is being written go into one transaction, each resolving once it is on disk', async () => {
    const { dir, store } = fresh();
    const raw = open(dir, { useVersions: true });
    const txnId = () => (raw.getStats() as { lastTxnId: number }).lastTxnId;
    // Control: puts awaited one by one cost one transaction each.
    const before = txnId();
    for (let i = 0; i < 5; i += 1) await store.ttl.put('i', 'codes', `seq${i}`, i, Date.now() + 60_000);
    expect(txnId() - before).toBe(5);
    // One put starts a batch; 50 more, each in a later event-loop turn, wait for it and go together.
    const start = txnId();
    const first = store.ttl.put('i', 'codes', 'first', 0, Date.now() + 60_000);
    const rest: Promise<void>[] = [];
    for (let i = 0; i < 50; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      rest.push(store.ttl.put('i', 'codes', `c${i}`, i, Date.now() + 60_000));
    }
    await Promise.all([first, ...rest]);
    expect(txnId() - start).toBeLessThan(51);
    expect(await store.ttl.get('i', 'codes', 'first')).toBe(0);
    for (let i = 0; i < 50; i += 1) expect(await store.ttl.get('i', 'codes', `c${i}`)).toBe(i);
    // A delete right after a put that is still queued keeps their order.
    const queued = store.ttl.put('i', 'codes', 'gone', 1, Date.now() + 60_000);
    await store.ttl.delete('i', 'codes', 'gone');
    await queued;
    expect(await store.ttl.get('i', 'codes', 'gone')).toBeUndefined();
    await raw.close();
  });

  it('fails only the put whose key is too long for LMDB, not the others written beside it', async () => {
    const { store } = fresh();
    const later = Date.now() + 60_000;
    const [long, short] = await Promise.allSettled([store.ttl.put('i', 'codes', 'k'.repeat(3000), 1, later), store.ttl.put('i', 'codes', 'short', 2, later)]);
    expect(long.status).toBe('rejected');
    expect(short.status).toBe('fulfilled');
    expect(await store.ttl.get('i', 'codes', 'short')).toBe(2);
  });

  it('finishes writes started before close', async () => {
    const { dir, store } = fresh();
    const pending = store.append(append('i', { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')] }));
    await store.close();
    expect((await pending).ok).toBe(true);
    expect(await openAt(dir).streamVersion('i', 'org', 'o1')).toBe(1);
  });

  it('rejects events on a stream without an expectation, writing nothing', async () => {
    const { store } = fresh();
    const request = append('i', { expectations: [expect0('org', 'o1')], events: [event('user', 'u1', 'user.added')] });
    await expect(store.append(request)).rejects.toThrow('no expectation for stream user/u1');
    expect(await store.readEvents('i', 0, 10)).toEqual([]);
  });

  it('rolls back an append whose write fails half way (NUL in a row id)', async () => {
    const { store } = fresh();
    const request = append('i', {
      expectations: [expect0('org', 'o1')],
      events: [event('org', 'o1', 'org.added')],
      project: () => [
        { table: 't', id: 'fine', value: 1 },
        { table: 't', id: 'bad\u0000id', value: 2 },
      ],
    });
    await expect(store.append(request)).rejects.toThrow('NUL');
    expect(await store.readEvents('i', 0, 10)).toEqual([]);
    expect(await store.getRecord('i', 't', 'fine')).toBeUndefined();
    expect(await store.streamVersion('i', 'org', 'o1')).toBe(0);
    expect(await store.projectionState('i')).toEqual({ position: 0, createdAt: 0 });
  });

  it('answers "absent" for lookups whose key contains NUL', async () => {
    const { store } = fresh();
    expect(await store.getRecord('i', 't', 'a\u0000b')).toBeUndefined();
    expect(await store.findUnique('i', 's', 'a\u0000b')).toBeUndefined();
    expect(await store.ttl.get('i', 'codes', 'a\u0000b')).toBeUndefined();
    expect(await store.ttl.take('i', 'codes', 'a\u0000b')).toBeUndefined();
    await expect(store.streamVersion('~x', 'org', 'o1')).rejects.toThrow('instance id');
    await expect(store.getRecord('~x', 't', 'a')).rejects.toThrow('instance id');
  });

  it('judges ttl expiry by the injected clock', async () => {
    const clock = createManualClock(Date.UTC(2030, 0, 1));
    const { store } = fresh({ clock });
    await store.ttl.put('i', 'codes', 'c', 'code', clock.now() + 1000);
    expect(await store.ttl.get('i', 'codes', 'c')).toBe('code');
    clock.advance(1000);
    expect(await store.ttl.get('i', 'codes', 'c')).toBeUndefined();
    expect(await store.ttl.take('i', 'codes', 'c')).toBeUndefined();
  });

  it('sweeps more rows than one batch holds', async () => {
    const { store } = fresh();
    const now = Date.now();
    await Promise.all(Array.from({ length: 1234 }, (_, i) => store.ttl.put('i', 'codes', `c${i}`, i, now - 1 - (i % 7))));
    expect(await store.ttl.sweep(now)).toBe(1234);
    expect(await store.ttl.sweep(now)).toBe(0);
  });

  it('writes one key per batched ttl row: rows of one batch expiring together share one expiry-group entry', async () => {
    const { dir, store } = fresh();
    const now = Date.now();
    // 300 rows at one expiry (more than one group entry holds) and 2 at another, in one batch.
    await Promise.all([
      ...Array.from({ length: 300 }, (_, i) => store.ttl.put('i', 'oidc.at', `t${i}`, i, now + 60_000)),
      store.ttl.put('i', 'oidc.rt', 'r1', 1, now + 120_000),
      store.ttl.put('j', 'oidc.rt', 'r2', 2, now + 120_000),
    ]);
    const raw = open(dir, { useVersions: true, readOnly: true });
    const all = Array.from(raw.getKeys({}));
    const ttlRows = all.filter((key) => Array.isArray(key) && key[1] === 't');
    const index = all.filter((key) => Array.isArray(key) && key[0] === '~ttl');
    await raw.close();
    expect(ttlRows).toHaveLength(302);
    expect(index).toHaveLength(3); // 256 + 44 at the first expiry, 2 at the second
    expect(await store.ttl.sweep(now + 60_000)).toBe(300);
    expect(await store.ttl.get('i', 'oidc.rt', 'r1')).toBe(1);
    expect(await store.ttl.sweep(now + 120_000)).toBe(2);
    expect(await store.ttl.sweep(now + 120_000)).toBe(0);
  });

  it('leaves a row of an expiry group alone when it was put again with a later expiry', async () => {
    const { store } = fresh();
    const now = Date.now();
    await Promise.all([store.ttl.put('i', 'codes', 'kept', 1, now + 1000), store.ttl.put('i', 'codes', 'gone', 2, now + 1000)]);
    await store.ttl.put('i', 'codes', 'kept', 3, now + 60_000);
    expect(await store.ttl.sweep(now + 1000)).toBe(1);
    expect(await store.ttl.get('i', 'codes', 'kept')).toBe(3);
    expect(await store.ttl.get('i', 'codes', 'gone')).toBeUndefined();
  });

  it('reads and sweeps ttl rows of a data directory written before expiry groups (one index key per row)', async () => {
    const { dir, store } = fresh();
    const now = Date.now();
    await store.close();
    // The earlier layout, written raw: the row (entry version = expiry) and its own index key.
    const raw = open(dir, { useVersions: true });
    await raw.put(['i', 't', 'oidc.at', 'old'], { sub: 'u' }, now + 1000);
    await raw.put(['~ttl', now + 1000, 'i', 'oidc.at', 'old'], null);
    await raw.put(['i', 't', 'oidc.at', 'live'], { sub: 'v' }, now + 60_000);
    await raw.put(['~ttl', now + 60_000, 'i', 'oidc.at', 'live'], null);
    await raw.close();
    const again = openAt(dir);
    expect(await again.ttl.get('i', 'oidc.at', 'old')).toEqual({ sub: 'u' });
    await again.ttl.put('i', 'oidc.at', 'new', { sub: 'w' }, now + 1000);
    expect(await again.ttl.sweep(now + 1000)).toBe(2);
    expect(await again.ttl.get('i', 'oidc.at', 'old')).toBeUndefined();
    expect(await again.ttl.get('i', 'oidc.at', 'live')).toEqual({ sub: 'v' });
    expect(await again.ttl.sweep(now + 60_000)).toBe(1);
  });

  it('lists the rows of a data directory written before the row listing at open', async () => {
    const { dir, store } = fresh();
    for (const instanceId of ['inst-b', 'inst-a']) await store.append(append(instanceId, { project: () => [{ table: OUTBOX_TABLE, id: 'm1', value: {} }] }));
    await store.append(append('inst-c', { project: () => [{ table: executionSetKind.table, id: 'inst-c', value: { entries: {} } }, { table: 'orgs', id: 'o1', value: {} }] }));
    expect(await collect(store.instancesWithRows(OUTBOX_TABLE))).toEqual(['inst-a', 'inst-b']); // the control: listed as written
    await store.close();
    // The earlier layout: the same rows without their listing keys and without the marker.
    const raw = open(dir, { useVersions: true });
    const listing = Array.from(raw.getKeys({ start: [LISTING], end: [LISTING, new Uint8Array([0xff])] }));
    expect(listing).toHaveLength(3);
    await raw.transaction(() => {
      for (const key of listing) raw.remove(key);
      raw.remove(metaKey(LISTING_META));
    });
    await raw.close();
    const again = openAt(dir);
    expect(await collect(again.instancesWithRows(OUTBOX_TABLE))).toEqual(['inst-a', 'inst-b']);
    expect(await collect(again.instancesWithRows(executionSetKind.table))).toEqual(['inst-c']);
  });

  it('marks a new data directory listed with its first append, so its next open builds no listing', async () => {
    const { dir, store } = fresh();
    expect(await store.getMeta(LISTING_META)).toBeUndefined(); // a new directory: nothing written at open
    await store.append(append('inst-a', { project: () => [{ table: OUTBOX_TABLE, id: 'm1', value: {} }] }));
    expect(await store.getMeta(LISTING_META)).toBe(1);
    await store.close();
    // A listing key removed behind the store's back stays removed at the next open: no build ran
    // (without the marker one would put it back, as the test above shows).
    const raw = open(dir, { useVersions: true });
    await raw.remove(listingKey(OUTBOX_TABLE, 'inst-a', 'm1'));
    await raw.close();
    const again = openAt(dir);
    expect(await collect(again.instancesWithRows(OUTBOX_TABLE))).toEqual([]);
    expect(await again.getRecord('inst-a', OUTBOX_TABLE, 'm1')).toEqual({});
  });

  it('reads a stream and the event log consistently after many appends', async () => {
    const { store } = fresh({ noSync: true });
    for (let version = 0; version < 50; version += 1) {
      const result = await store.append(
        append('i', { expectations: [expect0('c', 'c1', version)], events: [event('c', 'c1', 'c.incremented', { version })] }),
      );
      expect(result.ok).toBe(true);
    }
    const stream = await store.readStream('i', 'c', 'c1');
    expect(stream.map((e) => e.version)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await store.readEvents('i', 40, 5)).map((e) => e.position)).toEqual([41, 42, 43, 44, 45]);
  });
});
