/**
 * Term columns (src/store/term-columns.ts, lmdb-term-columns.ts, postgres-term-columns.ts), on
 * both stores: CONTAINS / ENDS_WITH answered from an in-memory column exactly as the store's own
 * index walk answers them (entries, cursors, offsets, counts, the search executor's page and
 * total); a write that changes terms between two searches is seen by the second, also when it
 * came through another store handle on the same data (another worker, another node); a write that
 * changes no term reads nothing again; the size bounds fall back to the walk and drop the least
 * recently used column. Reads of a whole index are counted through the store's `onWalk` hook: a
 * column read is one 'column' walk, a search without one a 'filter' walk. The PostgreSQL store's
 * choice between reading a column again and filtering in the database runs on a clock the tests
 * control (a clock that stands still: a stale column is read again at once, as on LMDB).
 */
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexEntry, IndexReads, IndexWalk, RecordWrite, StoreAdapter } from '../../actors/index.js';
import { executeSearch, type Condition } from '../../src/api/shared/search-executor.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { buildPgIndexes, invalidatePgIndexes } from '../../src/store/postgres-index-build.js';
import { connectPostgres, migratePostgres, openPostgresStore } from '../../src/store/postgres-store.js';
import { compareKeyText, type TermColumnOptions, type TermWalk } from '../../src/store/term-columns.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { TEST_CATALOG, thing, writeThings } from './index-suite.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';
import { tempDir } from '../temp-dirs.js';

const A = 'inst-a';
const B = 'inst-b';

/** Names with ASCII, accents, a character above the surrogates (U+E000, U+FFFD) and pairs (U+1F600): key order is code point order. */
const WORDS = ['alpha', 'Alpine', 'beta', 'Gamma', 'delta', 'épée', 'x\u{E000}y', 'x\u{1F600}y', 'x\u{FFFD}', 'zeta'];

function manyThings(count: number): RecordWrite[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `${WORDS[i % WORDS.length]} ${String(i % 7)}${i % 3 === 0 ? ' ne' : ''}`;
    const tags = i % 4 === 0 ? ['red', 'green'] : i % 4 === 1 ? ['blue'] : [];
    return thing(`t${String(i).padStart(3, '0')}`, name, `o${i % 5}`, 1000 + ((i * 37) % count), tags);
  });
}

/** A store of each kind on the same data, as often as asked (`place`: a directory, a schema). */
interface Backend {
  readonly name: string;
  /** A new place for data. */
  fresh(): string;
  open(place: string, termColumns: TermColumnOptions): Promise<StoreAdapter>;
  /** After the stores on it are closed. */
  remove(place: string): Promise<void>;
}

const lmdb: Backend = {
  name: 'lmdb',
  fresh: () => tempDir('tessera-columns-'),
  open: async (dir, termColumns) => openLmdbStore({ path: dir, catalog: TEST_CATALOG, termColumns }),
  remove: async () => undefined,
};

const postgresBackend: Backend = {
  name: 'postgres',
  fresh: () => freshSchemaName(),
  open: (schema, termColumns) => openPostgresStore({ url: TEST_DATABASE_URL ?? '', schema, maxConnections: 2, catalog: TEST_CATALOG, termColumns }),
  remove: (schema) => dropSchema(schema),
};

describeTermColumns(lmdb);
const postgresVerdict = await meet(POSTGRES);
describeIfMet(postgresVerdict, 'postgres term columns', () => describeTermColumns(postgresBackend));

function describeTermColumns(backend: Backend): void {
describe(`${backend.name} term columns`, () => {
  const opened: StoreAdapter[] = [];
  const places = new Set<string>();
  let walks: TermWalk[];
  /** A clock that stands still unless a test moves it (PostgreSQL's rent-or-buy rule, postgres-term-columns.ts). */
  let now: () => number;
  const open = async (place: string, termColumns: TermColumnOptions = {}) => {
    const store = await backend.open(place, { onWalk: (w) => walks.push(w), now: () => now(), ...termColumns });
    opened.push(store);
    return store;
  };
  const freshDir = () => {
    const place = backend.fresh();
    places.add(place);
    return place;
  };
  const count = (purpose: TermWalk['purpose'], index?: string) => walks.filter((w) => w.purpose === purpose && (index === undefined || w.index === index)).length;
  const ids = (entries: readonly IndexEntry[]) => entries.map((e) => e.id);
  /** The index reads of one request in instance A: the store's, with those its request view has in their place. */
  const requestReads = (store: StoreAdapter): IndexReads => {
    const view = store.requestReads?.(A);
    const own: IndexReads = {
      readIndex: (i, w) => store.readIndex(i, w),
      countIndex: (i, r) => store.countIndex(i, r),
      rowCounts: (i, t) => store.rowCounts(i, t),
      readSummaries: (i, t, x) => store.readSummaries(i, t, x),
      getRecords: (i, t, x) => store.getRecords(i, t, x),
    };
    const withSummaries = view?.readIndexWithSummaries;
    return withSummaries === undefined ? own : { ...own, readIndexWithSummaries: (i, w) => withSummaries(i, w) };
  };
  const contains = async (store: StoreAdapter, text: string, index = 'name_ci') => ids(await store.readIndex(A, { table: 'things', index, contains: text, limit: 50 }));

  beforeEach(() => {
    walks = [];
    now = () => 0;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await Promise.all([...places].map((place) => backend.remove(place)));
    places.clear();
  });

  it('keeps index keys in code point order, as the column compares terms', async () => {
    const dir = freshDir();
    const store = await open(dir);
    await writeThings(store, A, manyThings(40));
    const terms = (await store.readIndex(A, { table: 'things', index: 'name', limit: 100 })).map((e) => e.term);
    expect(new Set(terms).size).toBeGreaterThan(20);
    expect([...terms].sort(compareKeyText)).toEqual(terms);
    // Control: JavaScript's own order (UTF-16 code units) differs for these terms.
    expect([...terms].sort()).not.toEqual(terms);
  });

  it('answers CONTAINS and ENDS_WITH from the column as the key walk does: entries, cursors, offsets, counts, search pages and totals', async () => {
    const dir = freshDir();
    const columnar = await open(dir);
    const walking = await open(dir, { maxEntries: 0 });
    await writeThings(columnar, A, manyThings(120));
    await writeThings(columnar, B, [thing('b1', 'alpha in b', 'o1', 1)]);
    const filters: Partial<IndexWalk>[] = [];
    for (const text of ['a', 'e', 'ne', 'alp', ' 3', 'x', '\u{1F600}', '\u{E000}', 'é', 'zzz', 'alpine 1', 'épée 6 ne']) filters.push({ contains: text }, { suffix: text });
    filters.push({ contains: 'a', suffix: 'ne' });
    let nonEmpty = 0;
    for (const index of ['name', 'name_ci', 'tag']) {
      for (const filter of filters) {
        for (const reverse of [false, true]) {
          for (const [offset, limit] of [[0, 100], [0, 1], [3, 5], [200, 5]] as const) {
            const walk: IndexWalk = { table: 'things', index, ...filter, reverse, offset, limit };
            const expected = await walking.readIndex(A, walk);
            expect(await columnar.readIndex(A, walk)).toEqual(expected);
            if (expected.length > 0) nonEmpty += 1;
          }
          // Pages after a cursor, as the search executor walks (the last entry of each page).
          const all = await walking.readIndex(A, { table: 'things', index, ...filter, reverse, limit: 1000 });
          const paged: IndexEntry[] = [];
          for (;;) {
            const last = paged[paged.length - 1];
            const page = await columnar.readIndex(A, { table: 'things', index, ...filter, reverse, limit: 7, ...(last === undefined ? {} : { after: { term: last.term, id: last.id } }) });
            paged.push(...page);
            if (page.length < 7) break;
          }
          expect(paged).toEqual(all);
        }
        const range = { table: 'things', index, ...filter };
        expect(await columnar.countIndex(A, range)).toBe(await walking.countIndex(A, range));
      }
      // A cursor that is no entry (between two) and one past every entry.
      for (const after of [{ term: 'beta 2', id: 't000' }, { term: '\u{10FFFF}', id: 'z' }, { term: 'x\u{E000}y 0', id: 't999' }]) {
        for (const reverse of [false, true]) {
          const walk: IndexWalk = { table: 'things', index, contains: ' ', reverse, after, limit: 100 };
          expect(await columnar.readIndex(A, walk)).toEqual(await walking.readIndex(A, walk));
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(100);
    // The search executor: pages, offsets and totals, with a visibility check and a second condition.
    const table = TEST_CATALOG.tables[0]!;
    const conditionSets: Condition[][] = [[{ index: 'name_ci', contains: 'a' }], [{ index: 'name_ci', suffix: ' ne' }], [{ index: 'name_ci', contains: 'e' }, { index: 'tag', equals: 'red' }]];
    for (const conditions of conditionSets) {
      for (const sort of ['created', 'name_ci']) {
        for (const [offset, limit, asc] of [[0, 10, true], [5, 3, false], [40, 10, true], [500, 10, false]] as const) {
          const plan = { instanceId: A, table, sort, conditions, query: { offset, limit, asc }, visible: (_id: string, scope: string) => scope !== 'o3' };
          const want = await executeSearch<{ id: string }>(walking, plan);
          const got = await executeSearch<{ id: string }>(columnar, plan);
          expect([got.rows.map((r) => r.id), got.total]).toEqual([want.rows.map((r) => r.id), want.total]);
          // As a request reads (PostgreSQL: its first walk also reads the instance's position).
          const viewed = await executeSearch<{ id: string }>(requestReads(columnar), plan);
          expect([viewed.rows.map((r) => r.id), viewed.total]).toEqual([want.rows.map((r) => r.id), want.total]);
        }
      }
    }
    // The other instance has its own column.
    expect(await contains(columnar, 'alpha in')).toEqual([]);
    expect(ids(await columnar.readIndex(B, { table: 'things', index: 'name_ci', contains: 'alpha in', limit: 5 }))).toEqual(['b1']);
    // One column per index and instance, built once; the walking handle walked every time.
    expect(walks.filter((w) => w.purpose === 'column').map((w) => `${w.instanceId} ${w.index}`)).toEqual([`${A} name`, `${A} name_ci`, `${A} tag`, `${B} name_ci`]);
    expect(count('filter')).toBeGreaterThan(300);
  });

  it('sees a rename, a create and a delete made after the column was built; a write that changes no term builds nothing', async () => {
    const store = await open(freshDir());
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['x']), thing('t2', 'alpha', 'o1', 10), thing('t3', 'Alpine', 'o2', 20), thing('t4', 'beta', 'o2', 40)]);
    expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(count('column')).toBe(1);
    // Control: no write, no second walk.
    expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(await contains(store, 'et')).toEqual(['t1', 't4']);
    expect([count('column'), count('filter')]).toEqual([1, 0]);
    // The same row written again (no term changes): the column stays.
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['x'])]);
    expect(await contains(store, 'et')).toEqual(['t1', 't4']);
    expect(count('column')).toBe(1);
    // Rename.
    await writeThings(store, A, [thing('t2', 'Omega', 'o1', 10)]);
    expect(await contains(store, 'lp')).toEqual(['t3']);
    expect(await contains(store, 'meg')).toEqual(['t2']);
    expect(count('column')).toBe(2);
    // Create.
    await writeThings(store, A, [thing('t5', 'Alpaca', 'o1', 50)]);
    expect(await contains(store, 'lp')).toEqual(['t5', 't3']);
    expect(count('column')).toBe(3);
    // Delete, and a scope change (the entry's scope is read from the column).
    await writeThings(store, A, [{ table: 'things', id: 't3', value: null }, thing('t5', 'Alpaca', 'o2', 50)]);
    expect(await store.readIndex(A, { table: 'things', index: 'name_ci', contains: 'lp', limit: 5 })).toEqual([{ term: 'alpaca', id: 't5', scope: 'o2' }]);
    expect(await store.countIndex(A, { table: 'things', index: 'name_ci', suffix: 'a' })).toBe(4);
    expect(count('column')).toBe(4);
    // Through the search executor: the renamed row is found, its total counted.
    const found = await executeSearch<{ id: string }>(store, {
      instanceId: A,
      table: TEST_CATALOG.tables[0]!,
      sort: 'name_ci',
      conditions: [{ index: 'name_ci', contains: 'ega' }],
      query: { offset: 0, limit: 10, asc: true },
    });
    expect([found.rows.map((r) => r.id), found.total]).toEqual([['t2'], 1]);
  });

  it('sees a sub-row table\'s entries change with their parent row (the two share one epoch)', async () => {
    const store = await open(freshDir());
    const tags = async (text: string) => ids(await store.readIndex(A, { table: 'thing_tags', index: 'tag', contains: text, limit: 50 }));
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['red']), thing('t2', 'alpha', 'o1', 10, ['green'])]);
    expect(await tags('re')).toEqual(['t2/green', 't1/red']);
    expect(await tags('re')).toEqual(['t2/green', 't1/red']);
    // Control: one column build for the two filters.
    expect(count('column', 'tag')).toBe(1);
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['red', 'reed']), thing('t2', 'alpha', 'o1', 10, [])]);
    expect(await tags('re')).toEqual(['t1/red', 't1/reed']);
    expect(count('column', 'tag')).toBe(2);
    // A parent write that changes only the parent's own terms also moves the shared epoch: one more build, same answer.
    await writeThings(store, A, [thing('t1', 'Renamed', 'o1', 30, ['red', 'reed'])]);
    expect(await tags('re')).toEqual(['t1/red', 't1/reed']);
    expect(count('column', 'tag')).toBe(3);
  });

  it('sees the writes of another store handle on the same directory (as another worker), both ways', async () => {
    const dir = freshDir();
    const one = await open(dir);
    const other = await open(dir);
    await writeThings(one, A, [thing('t1', 'Beta', 'o1', 30), thing('t2', 'alpha', 'o1', 10)]);
    expect(await contains(one, 'a')).toEqual(['t2', 't1']);
    // `other` was opened before the write: like a worker told of it, it renews its read snapshot first.
    other.renewReads?.();
    expect(await contains(other, 'a')).toEqual(['t2', 't1']);
    expect(count('column')).toBe(2);
    // Control: neither handle walks again without a write.
    expect(await contains(one, 'a')).toEqual(['t2', 't1']);
    expect(await contains(other, 'a')).toEqual(['t2', 't1']);
    expect(count('column')).toBe(2);
    // A rename through the other handle; each handle renews its read snapshot before it works,
    // as a worker does when the write generation moved (docs/architecture.md "Workers").
    other.renewReads?.();
    await writeThings(other, A, [thing('t2', 'Omega', 'o1', 10)]);
    one.renewReads?.();
    expect(await contains(one, 'ome')).toEqual(['t2']);
    expect(await contains(one, 'alp')).toEqual([]);
    // And back: a create through this handle reaches the other's column.
    await writeThings(one, A, [thing('t3', 'Alpine', 'o2', 20)]);
    other.renewReads?.();
    expect(await contains(other, 'alp')).toEqual(['t3']);
    expect(await contains(other, 'ome')).toEqual(['t2']);
    expect(count('column')).toBe(4);
  });

  it('walks the keys for indexes larger than a column may be, and drops the least recently used column beyond the total', async () => {
    const dir = freshDir();
    await writeThings(await open(dir), A, [thing('t1', 'Beta', 'o1', 30, ['x', 'y']), thing('t2', 'alpha', 'o1', 10, ['x', 'y']), thing('t3', 'Alpine', 'o2', 20, ['z']), thing('t4', 'beta', 'o2', 40)]);
    // 4 rows, more than 3 entries: every search walks, answers unchanged.
    const small = await open(dir, { maxEntries: 3 });
    walks = [];
    expect(await contains(small, 'lp')).toEqual(['t2', 't3']);
    expect(await contains(small, 'lp')).toEqual(['t2', 't3']);
    expect(await small.countIndex(A, { table: 'things', index: 'name_ci', contains: 'et' })).toBe(2);
    expect([count('column'), count('filter')]).toEqual([0, 3]);
    // 4 rows but 5 tag entries (a multi-valued index): the build gives up and the search walks.
    const five = await open(dir, { maxEntries: 4 });
    walks = [];
    expect(await contains(five, 'lp')).toEqual(['t2', 't3']);
    expect(await contains(five, 'lp')).toEqual(['t2', 't3']);
    expect(await contains(five, 'y', 'tag')).toEqual(['t1', 't2']);
    expect(await contains(five, 'y', 'tag')).toEqual(['t1', 't2']);
    expect(walks.map((w) => [w.index, w.purpose])).toEqual([
      ['name_ci', 'column'],
      ['tag', 'column'],
      ['tag', 'filter'],
      ['tag', 'filter'],
    ]);
    // Room for 10 entries in all: name (4) and name_ci (4) fit; tag (5) drops the least recently used.
    const capped = await open(dir, { maxEntries: 10, maxTotalEntries: 10 });
    walks = [];
    expect(await contains(capped, 'ta', 'name')).toEqual(['t1', 't4']);
    expect(await contains(capped, 'ta')).toEqual(['t1', 't4']);
    expect(await contains(capped, 'ta', 'name')).toEqual(['t1', 't4']); // name is now the most recent
    expect(await contains(capped, 'z', 'tag')).toEqual(['t3']); // drops name_ci
    expect(await contains(capped, 'ta', 'name')).toEqual(['t1', 't4']);
    expect(await contains(capped, 'ta')).toEqual(['t1', 't4']); // built again
    expect(walks.map((w) => [w.index, w.purpose])).toEqual([
      ['name', 'column'],
      ['name_ci', 'column'],
      ['tag', 'column'],
      ['name_ci', 'column'],
    ]);
  });
});
}

describeIfMet(postgresVerdict, 'postgres term columns: reading a column again, epochs of upgrades and index builds', () => {
  const url = TEST_DATABASE_URL ?? '';
  const opened: StoreAdapter[] = [];
  const schemas: string[] = [];
  let walks: TermWalk[];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await Promise.all(schemas.splice(0).map((schema) => dropSchema(schema)));
  });
  const purposes = () => walks.map((w) => w.purpose);
  /** A store on a fresh schema whose clock moves only inside a timed read of the index: `ms` of each kind. */
  const openTimed = async (ms: Record<TermWalk['purpose'], number>, maxEntries?: number) => {
    const schema = freshSchemaName();
    schemas.push(schema);
    let clock = 0;
    let step = 0;
    walks = [];
    const onWalk = (w: TermWalk) => {
      walks.push(w);
      step = ms[w.purpose];
    };
    const now = () => {
      const at = clock;
      clock += step;
      return at;
    };
    const store = await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG, termColumns: { onWalk, now, ...(maxEntries === undefined ? {} : { maxEntries }) } });
    opened.push(store);
    return store;
  };
  const contains = async (store: StoreAdapter, text: string) => (await store.readIndex(A, { table: 'things', index: 'name_ci', contains: text, limit: 50 })).map((e) => e.id);

  it('after a write, filters in the database until they took as long as the last column read, then reads the column again', async () => {
    // The clock moves only inside a timed read: 10 ms for a column, 1 ms for a filter.
    const store = await openTimed({ column: 10, filter: 1 });
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30), thing('t2', 'alpha', 'o1', 10), thing('t3', 'Alpine', 'o2', 20)]);
    expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(purposes()).toEqual(['column']);
    // A rename: the held column is stale; ten filters (10 × 1 ms) before it is read again, each seeing the rename.
    await writeThings(store, A, [thing('t2', 'Omega', 'o1', 10)]);
    for (let i = 0; i < 10; i += 1) expect(await contains(store, 'lp')).toEqual(['t3']);
    expect(purposes()).toEqual(['column', ...Array<string>(10).fill('filter')]);
    expect(await contains(store, 'meg')).toEqual(['t2']);
    expect(await contains(store, 'lp')).toEqual(['t3']);
    expect(purposes()).toEqual(['column', ...Array<string>(10).fill('filter'), 'column']);
    // Control: a write that changes no term leaves the column current.
    await writeThings(store, A, [thing('t3', 'Alpine', 'o2', 20)]);
    expect(await contains(store, 'alp')).toEqual(['t3']);
    expect(purposes()).toHaveLength(12);
  });

  it('reads a column once for requests that need it at the same time, each with the right answer', async () => {
    const store = await openTimed({ column: 0, filter: 0 });
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30), thing('t2', 'alpha', 'o1', 10), thing('t3', 'Alpine', 'o2', 20)]);
    const answers = await Promise.all([contains(store, 'lp'), contains(store, 'et'), store.countIndex(A, { table: 'things', index: 'name_ci', contains: 'a' }), contains(store, 'lp')]);
    expect(answers).toEqual([['t2', 't3'], ['t1'], 3, ['t2', 't3']]);
    expect(purposes()).toEqual(['column']);
    // Control: once the table changes, the next request reads it again (the clock stands still).
    await writeThings(store, A, [thing('t4', 'Alps', 'o1', 40)]);
    expect(await contains(store, 'lp')).toEqual(['t2', 't3', 't4']);
    expect(purposes()).toEqual(['column', 'column']);
  });

  it('tries an index too large for a column again once filtering has cost more than the read that found it too large', async () => {
    const store = await openTimed({ column: 3, filter: 1 }, 2);
    // Two rows, four tag entries: the row count lets the read start, the entries make it give up (3 ms).
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['red', 'reed']), thing('t2', 'alpha', 'o1', 10, ['green', 'grey'])]);
    const tags = async () => (await store.readIndex(A, { table: 'things', index: 'tag', contains: 're', limit: 50 })).map((e) => e.id);
    expect(await tags()).toEqual(['t2', 't2', 't1', 't1']);
    expect(purposes()).toEqual(['column', 'filter']);
    // 1 + 1 + 1 ms of filters is not more than 3: no read; the fourth filter's time passes it.
    for (let i = 0; i < 3; i += 1) expect(await tags()).toEqual(['t2', 't2', 't1', 't1']);
    expect(purposes()).toEqual(['column', ...Array<string>(4).fill('filter')]);
    expect(await tags()).toEqual(['t2', 't2', 't1', 't1']);
    expect(purposes()).toEqual(['column', ...Array<string>(4).fill('filter'), 'column', 'filter']);
  });

  it('never reads the entries of a table with more rows than a column holds (its row count says so first)', async () => {
    const store = await openTimed({ column: 3, filter: 1 }, 2);
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30), thing('t2', 'alpha', 'o1', 10), thing('t3', 'Alpine', 'o2', 20)]);
    for (let i = 0; i < 5; i += 1) expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(purposes()).toEqual(Array<string>(5).fill('filter'));
    // Control: once a row is gone the table fits, and the next filters read the column (the count is checked again as they run).
    await writeThings(store, A, [{ table: 'things', id: 't1', value: null }]);
    for (let i = 0; i < 3; i += 1) expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    expect(purposes()).toContain('column');
  });

  it('gives every table with rows an epoch on upgrade to migration 8, and a column is kept from its first read', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    walks = [];
    const first = await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG });
    await writeThings(first, A, [thing('t1', 'Beta', 'o1', 30, ['red']), thing('t2', 'alpha', 'o1', 10)]);
    await writeThings(first, B, [thing('b1', 'Gamma', 'o1', 30)]);
    await first.close();
    const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      const epochs = async () => (await sql.unsafe('SELECT instance_id, table_name FROM index_epochs ORDER BY instance_id, table_name')).map((r) => `${String(r.instance_id)} ${String(r.table_name)}`);
      // The appends gave the tables their epochs (control), then the schema goes back to version 7.
      expect(await epochs()).toEqual([`${A} things`, `${B} things`]);
      await sql.unsafe('DROP TABLE index_epochs');
      await sql.unsafe('DELETE FROM schema_migrations WHERE version = 8');
      const upgraded = await migratePostgres({ url, schema });
      expect(upgraded.applied).toEqual([8]);
      // One per table with row counts: the sub-row tables' too, unused (their entries move their parent table's epoch).
      expect(await epochs()).toEqual([`${A} thing_tag_notes`, `${A} thing_tags`, `${A} things`, `${B} things`]);
    } finally {
      await sql.end({ timeout: 5 });
    }
    const store = await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG, termColumns: { onWalk: (w) => walks.push(w), now: () => 0 } });
    opened.push(store);
    expect(await contains(store, 'a')).toEqual(['t2', 't1']);
    expect(await contains(store, 'a')).toEqual(['t2', 't1']);
    expect(purposes()).toEqual(['column']);
  });

  it('reads a column again after the index build rewrote the entries (rows changed without them, as a load does)', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    walks = [];
    const store = await openPostgresStore({ url, schema, maxConnections: 2, catalog: TEST_CATALOG, termColumns: { onWalk: (w) => walks.push(w), now: () => 0 } });
    opened.push(store);
    await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30), thing('t2', 'alpha', 'o1', 10), thing('t3', 'Alpine', 'o2', 20)]);
    expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
    const sql = connectPostgres({ url, schema, maxConnections: 1 });
    try {
      await sql.unsafe("DELETE FROM records WHERE instance_id = $1 AND table_name = 'things' AND id = 't2'", [A]);
      // Control: the entries are untouched, so the column still answers them.
      expect(await contains(store, 'lp')).toEqual(['t2', 't3']);
      expect(purposes()).toEqual(['column']);
      await invalidatePgIndexes(sql);
      await buildPgIndexes(sql, TEST_CATALOG);
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(await contains(store, 'lp')).toEqual(['t3']);
    expect(purposes()).toEqual(['column', 'column']);
  });
});
