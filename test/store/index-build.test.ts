/**
 * Upgrades: a store written without indexes (today's format on main: no index keys, no
 * `index.version` marker; PostgreSQL: the index tables empty) gets its indexes built when it
 * is next opened with the catalog (LMDB) or migrated (`tessera migrate`, PostgreSQL); a build
 * interrupted part-way resumes from its recorded position instead of starting over; a newer
 * catalog version rebuilds, on LMDB also from the index key layout before catalog version 7
 * (its old keys written raw beside rows written through the API).
 *
 * The old format is produced through the store API with no catalog, which writes exactly the
 * keys and tables main writes (the index code is only reached through a catalog), so no
 * binary fixture has to be kept in the repository.
 */
import { open, type Key } from 'lmdb';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EMPTY_CATALOG, type IndexCatalog, type StoreAdapter } from '../../actors/index.js';
import { isIndexCode } from '../../src/store/keys.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres-store.js';
import { dueThrough, TEST_CATALOG, thing, writeDue, writeThings } from './index-suite.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';
import { tempDir } from '../temp-dirs.js';

const A = 'inst-a';
const ROWS = 2500;

/** Rows t0000..t2499, names n0..., two scopes. */
async function fillOld(store: StoreAdapter): Promise<void> {
  for (let from = 0; from < ROWS; from += 500) {
    await writeThings(
      store,
      A,
      Array.from({ length: 500 }, (_, k) => {
        const i = from + k;
        return thing(`t${String(i).padStart(4, '0')}`, `Name ${i}`, i % 2 === 0 ? 'o1' : 'o2', 1000 + i, i % 100 === 0 ? ['hundred', `h${i}`] : []);
      }),
    );
  }
}

async function expectIndexed(store: StoreAdapter): Promise<void> {
  expect(await store.rowCounts(A, 'things')).toEqual([
    { scope: 'o1', count: ROWS / 2 },
    { scope: 'o2', count: ROWS / 2 },
  ]);
  expect((await store.readIndex(A, { table: 'things', index: 'created', reverse: true, limit: 2 })).map((e) => e.id)).toEqual(['t2499', 't2498']);
  expect((await store.readIndex(A, { table: 'things', index: 'name_ci', equals: 'name 1234', limit: 5 })).map((e) => e.id)).toEqual(['t1234']);
  expect(await store.countIndex(A, { table: 'things', index: 'name', prefix: 'Name 12' })).toBe(111);
  // The sub-row table (tags inside things) is built from the parent rows too.
  expect(await store.countIndex(A, { table: 'thing_tags', index: 'tag', equals: 'hundred' })).toBe(ROWS / 100);
  expect((await store.readIndex(A, { table: 'thing_tags', index: 'parent', equals: 't1200', limit: 5 })).map((e) => e.id)).toEqual(['t1200/h1200', 't1200/hundred']);
}

describe('index build on upgrade: lmdb', () => {
  const newDir = () => tempDir('tessera-index-build-');

  it('indexes a data directory written without indexes when it is opened with the catalog', async () => {
    const dir = newDir();
    const old = openLmdbStore({ path: dir });
    await fillOld(old);
    // Positive control: the old format answers no index read.
    expect(await old.rowCounts(A, 'things')).toEqual([]);
    await old.close();
    const upgraded = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    try {
      await expectIndexed(upgraded);
      // An append after the upgrade keeps them current.
      await writeThings(upgraded, A, [thing('t0001', 'Renamed', 'o1', 1001)]);
      expect((await upgraded.readIndex(A, { table: 'things', index: 'name', equals: 'Renamed', limit: 5 })).map((e) => e.id)).toEqual(['t0001']);
    } finally {
      await upgraded.close();
    }
  });

  it('resumes an interrupted build from its recorded position, and rebuilds for a newer catalog version', async () => {
    const dir = newDir();
    const old = openLmdbStore({ path: dir });
    await fillOld(old);
    await old.close();
    // A build that stopped after row t1999 of `things` (its progress marker, committed with the batch).
    const raw = open({ path: dir, useVersions: true });
    await raw.put(['~meta', 'index.build'], { version: TEST_CATALOG.version, instanceId: A, table: 'things', after: 't1999' });
    await raw.close();
    const resumed = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    try {
      // Only the rows after the marker were indexed: the build did not start over.
      const ids = (await resumed.readIndex(A, { table: 'things', index: 'created', limit: ROWS })).map((e) => e.id);
      expect(ids).toHaveLength(500);
      expect(ids[0]).toBe('t2000');
      expect(await resumed.getMeta('index.build')).toBeUndefined();
    } finally {
      await resumed.close();
    }
    const newer = openLmdbStore({ path: dir, catalog: { ...TEST_CATALOG, version: TEST_CATALOG.version + 1 } });
    try {
      await expectIndexed(newer);
    } finally {
      await newer.close();
    }
  });

  it('rebuilds index keys of the layout before catalog version 7 ([instance, "i", table, index, term, id]) as coded keys, and leaves none of the old', async () => {
    const dir = newDir();
    const old = openLmdbStore({ path: dir });
    await fillOld(old);
    await old.close();
    // The keys a version-6 store kept beside those rows (one index here, enough to be cleared),
    // marked as built for the catalog then current.
    const raw = open<unknown, Key>({ path: dir, useVersions: true });
    await raw.transaction(() => {
      for (let i = 0; i < ROWS; i += 1) void raw.put([A, 'i', 'things', 'name', `Name ${i}`, `t${String(i).padStart(4, '0')}`], i % 2 === 0 ? 'o1' : 'o2');
      void raw.put(['~meta', 'index.version'], TEST_CATALOG.version);
    });
    // A fresh read snapshot each time: the other handle's commits are not seen by an older one.
    const legacy = () => {
      raw.resetReadTxn();
      return raw.getCount({ start: [A, 'i'], end: [A, 'i', new Uint8Array([0xff])] });
    };
    // Positive control: the old keys are there, and a store of the same version neither reads nor clears them.
    expect(legacy()).toBe(ROWS);
    const same = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    expect(await same.countIndex(A, { table: 'things', index: 'name', prefix: 'Name 12' })).toBe(0);
    await same.close();
    expect(legacy()).toBe(ROWS);
    const upgraded = openLmdbStore({ path: dir, catalog: { ...TEST_CATALOG, version: TEST_CATALOG.version + 1 } });
    try {
      await expectIndexed(upgraded);
      expect(legacy()).toBe(0);
      // Every index key is [instance, code, term, id] with a one-character code, never a table tag.
      const tags = new Set(['e', 'h', 's', 'p', 'r', 'u', 't', 'x', 'n', 'v', 'd']);
      const indexKeys = Array.from(raw.getKeys({ start: [A], end: [A, new Uint8Array([0xff])] })).filter((key) => !tags.has(String((key as unknown[])[1])));
      // name, name_ci, created per row; 25 rows with 2 tags: things.tag, thing_tags.parent and .tag, thing_tag_notes.tag.
      expect(indexKeys.length).toBe(3 * ROWS + 4 * 50);
      expect(indexKeys.filter((key) => !(Array.isArray(key) && key.length === 4 && isIndexCode(key[1]) && String(key[1]).length === 1))).toEqual([]);
      // Each stores its scope's number from the instance's dictionary (both ways), not the scope.
      const o1 = raw.get([A, 'd', 'o1']);
      const o2 = raw.get([A, 'd', 'o2']);
      expect([typeof o1, typeof o2, raw.get([A, 'd', o1 as number]), raw.get([A, 'd', o2 as number]), raw.get([A, 'd'])]).toEqual(['number', 'number', 'o1', 'o2', 2]);
      expect(new Set(indexKeys.map((key) => raw.get(key)))).toEqual(new Set([o1, o2]));
    } finally {
      await upgraded.close();
      await raw.close();
    }
  });

  it('a newer catalog version that drops an index removes that index\'s keys and keeps the others', async () => {
    const dir = newDir();
    const old = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    await fillOld(old);
    // Positive control: the index to be dropped has entries under the current version.
    expect(await old.countIndex(A, { table: 'things', index: 'name', prefix: 'Name 12' })).toBe(111);
    await old.close();
    const dropped = {
      version: TEST_CATALOG.version + 1,
      tables: TEST_CATALOG.tables.map((t) => (t.table === 'things' ? { ...t, indexes: t.indexes.filter((i) => i.name !== 'name') } : t)),
    };
    const upgraded = openLmdbStore({ path: dir, catalog: dropped });
    try {
      expect(await upgraded.countIndex(A, { table: 'things', index: 'name', prefix: 'Name 12' })).toBe(0);
      expect((await upgraded.readIndex(A, { table: 'things', index: 'name_ci', equals: 'name 1234', limit: 5 })).map((e) => e.id)).toEqual(['t1234']);
      expect(await upgraded.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: ROWS / 2 },
        { scope: 'o2', count: ROWS / 2 },
      ]);
    } finally {
      await upgraded.close();
    }
  });
  it('builds the entries kept across instances at open, and a rebuild leaves none of the old ones behind', async () => {
    const dir = newDir();
    const old = openLmdbStore({ path: dir });
    await writeDue(old, A, 'k', [10]);
    await writeDue(old, 'inst-b', 'k', [20]);
    await old.close();
    const upgraded = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    expect(await dueThrough(upgraded, 100)).toEqual([[10, A, 'k'], [20, 'inst-b', 'k']]);
    await upgraded.close();
    // A row removed by a store that keeps no indexes leaves its entry until the indexes are rebuilt…
    const without = openLmdbStore({ path: dir });
    await writeDue(without, 'inst-b', 'k', null);
    await without.close();
    const same = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    expect(await dueThrough(same, 100)).toEqual([[10, A, 'k'], [20, 'inst-b', 'k']]);
    await same.close();
    // …which a newer catalog version does, from the rows alone.
    const rebuilt = openLmdbStore({ path: dir, catalog: { ...TEST_CATALOG, version: TEST_CATALOG.version + 1 } });
    try {
      expect(await dueThrough(rebuilt, 100)).toEqual([[10, A, 'k']]);
    } finally {
      await rebuilt.close();
    }
  });

  // TESSERA_BENCH_WITHOUT_INDEXES opens the store with the empty catalog (src/cli/open-store.ts).
  it.each([
    { opened: 'the empty catalog', catalog: EMPTY_CATALOG, indexed: true },
    { opened: 'no catalog (control: the marker stays and the rows stay unindexed)', catalog: undefined, indexed: false },
  ])('rows written by a store opened with $opened are indexed at the next open with the catalog: $indexed', async ({ catalog, indexed }: { catalog: IndexCatalog | undefined; indexed: boolean }) => {
    const dir = newDir();
    // Indexes built (for no rows yet): the version marker is current.
    await openLmdbStore({ path: dir, catalog: TEST_CATALOG }).close();
    const without = openLmdbStore({ path: dir, ...(catalog === undefined ? {} : { catalog }) });
    await fillOld(without);
    await without.close();
    const reopened = openLmdbStore({ path: dir, catalog: TEST_CATALOG });
    try {
      if (indexed) await expectIndexed(reopened);
      else expect(await reopened.rowCounts(A, 'things')).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});

const postgresVerdict = await meet(POSTGRES);

describeIfMet(postgresVerdict, 'index build on upgrade: postgres', () => {
  const url = TEST_DATABASE_URL ?? '';
  const schemas: string[] = [];
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  afterEach(async () => {
    await Promise.all(schemas.splice(0).map(dropSchema));
  });
  afterAll(() => admin.end({ timeout: 5 }));

  it('tessera migrate builds the indexes of a schema written without them, resuming an interrupted build', { timeout: 120_000 }, async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const old = await openPostgresStore({ url, schema, maxConnections: 2 });
    await fillOld(old);
    expect(await old.rowCounts(A, 'things')).toEqual([]);
    await old.close();
    // A build that stopped after row t1999.
    await admin.unsafe(`UPDATE "${schema}".index_state SET version = $1, complete = false, instance_id = $2, table_name = 'things', after_id = 't1999'`, [TEST_CATALOG.version, A]);
    const first = await migratePostgres({ url, schema, catalog: TEST_CATALOG });
    // The rest of `things`, then every parent row for each sub-row table (`thing_tags`, `thing_tag_notes`).
    expect(first.indexedRows).toBe(500 + 2 * ROWS);
    const again = await migratePostgres({ url, schema, catalog: TEST_CATALOG });
    expect(again.indexedRows).toBe(0);
    const rebuilt = await migratePostgres({ url, schema, catalog: { ...TEST_CATALOG, version: TEST_CATALOG.version + 1 } });
    expect(rebuilt.indexedRows).toBe(3 * ROWS);
    const store = await openPostgresStore({ url, schema, maxConnections: 2, catalog: { ...TEST_CATALOG, version: TEST_CATALOG.version + 1 } });
    try {
      await expectIndexed(store);
    } finally {
      await store.close();
    }
  });

  it('rows written by a store opened with the empty catalog are indexed at the next open with the catalog', { timeout: 120_000 }, async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    await (await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG })).close();
    const [built] = await admin.unsafe<{ version: number; complete: boolean }[]>(`SELECT version, complete FROM "${schema}".index_state`);
    // Positive control: the marker names the catalog before the store without indexes opens.
    expect(built).toEqual({ version: TEST_CATALOG.version, complete: true });
    const without = await openPostgresStore({ url, schema, maxConnections: 2, catalog: EMPTY_CATALOG });
    await fillOld(without);
    await without.close();
    const reopened = await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG });
    try {
      await expectIndexed(reopened);
    } finally {
      await reopened.close();
    }
  });
});
