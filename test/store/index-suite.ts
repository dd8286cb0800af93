/**
 * The index half of the StoreAdapter contract (actors/kernel/indexes.ts), run by every adapter:
 * entries written in the append transaction and moved or removed with their rows, keyset walks
 * in both directions (equals, prefix, cursor, offset), range counts, per-scope row counts,
 * summaries, a rolled-back append leaving no entry, and a dump loaded into a fresh store
 * answering the same walks; a sub-row table (the entries inside a row, here a thing's tags)
 * indexed entry by entry and moved with its parent row.
 */
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { defineIndexes, defineSubIndexes, numberTerm, type AggregateKind, type IndexCatalog, type RecordWrite, type StoreAdapter } from '../../actors/index.js';
import { executeSearch } from '../../src/api/shared/search-executor.js';
import { append, collect, event, expect0, type OpenStore } from './store-suite.js';

interface Thing {
  readonly name: string;
  readonly org: string;
  readonly tags: readonly string[];
}

const thingKind: AggregateKind<Thing> = {
  type: 'thing',
  table: 'things',
  events: { aggregateType: 'thing', aggregate: 'test rows', events: {} },
  evolve: (state) => state,
};

/** Rows with times, in a table both stores keep an index of across instances (`web_keys`). */
interface Due {
  readonly since: readonly number[];
}

const dueKind: AggregateKind<Due> = {
  type: 'due',
  table: 'web_keys',
  events: { aggregateType: 'due', aggregate: 'test rows', events: {} },
  evolve: (state) => state,
};

/** A small catalog over the `things` table (other tables of the suites stay unindexed). */
export const TEST_CATALOG: IndexCatalog = {
  version: 1,
  tables: [
    defineIndexes(thingKind, (r) => r.state.org, {
      name: (r) => r.state.name,
      name_ci: (r) => r.state.name.toLowerCase(),
      created: (r) => r.meta.createdAt,
      tag: (r) => r.state.tags,
    }),
    // Sub-rows: each tag of a thing, id `<thing>/<tag>`, scope the thing's org.
    defineSubIndexes<Thing, string>(
      thingKind,
      { name: 'thing_tags', parent: 'walked' },
      (r) => r.state.tags.map((tag) => ({ key: tag, item: tag })),
      (r) => r.parent.state.org,
      { tag: (r) => r.item },
    ),
    // The same entries with the parent id in the summaries only (no search walks it).
    defineSubIndexes<Thing, string>(
      thingKind,
      { name: 'thing_tag_notes', parent: 'summary' },
      (r) => r.state.tags.map((tag) => ({ key: tag, item: tag })),
      (r) => r.parent.state.org,
      { tag: (r) => r.item },
    ),
    // `since` kept across instances as well; `plain`, the same terms, per instance only.
    defineIndexes(dueKind, () => '', { since: (r) => r.state.since.map(numberTerm), plain: (r) => r.state.since.map(numberTerm) }, { acrossInstances: ['since'] }),
  ],
};

const A = 'inst-a';
const B = 'inst-b';

export function thing(id: string, name: string, org: string, createdAt: number, tags: readonly string[] = []): RecordWrite {
  return { table: 'things', id, value: { id, meta: { version: 1, sequence: 1, createdAt, changedAt: createdAt, owner: { type: 'org', id: org } }, state: { name, org, tags } } };
}

export async function writeThings(store: StoreAdapter, instanceId: string, rows: readonly RecordWrite[]): Promise<void> {
  const ids = rows.map((r) => r.id);
  const heads = await Promise.all(ids.map((id) => store.streamVersion(instanceId, 'thing', id)));
  const result = await store.append(
    append(instanceId, {
      expectations: ids.map((id, i) => expect0('thing', id, heads[i])),
      events: ids.map((id) => event('thing', id, 'thing.set')),
      project: () => rows,
    }),
  );
  expect(result.ok).toBe(true);
}

const ids = (entries: readonly { id: string }[]) => entries.map((e) => e.id);

/** Writes (or, with null, removes) the `web_keys` row `id` of an instance with these times. */
export async function writeDue(store: StoreAdapter, instanceId: string, id: string, since: readonly number[] | null): Promise<void> {
  const head = await store.streamVersion(instanceId, 'due', id);
  const value = since === null ? null : { id, meta: { version: head + 1, sequence: 1, createdAt: 1, changedAt: 1, owner: { type: 'instance', id: instanceId } }, state: { since } };
  const result = await store.append(append(instanceId, { expectations: [expect0('due', id, head)], events: [event('due', id, 'due.set')], project: () => [{ table: 'web_keys', id, value }] }));
  expect(result.ok).toBe(true);
}

/** The entries of `web_keys.since` across instances with a time at most `through`, as [time, instance, id]. */
export async function dueThrough(store: StoreAdapter, through: number): Promise<[number, string, string][]> {
  return (await collect(store.readAcrossInstances('web_keys', 'since', numberTerm(through)))).map((e) => [Number(e.term), e.instanceId, e.id]);
}

export function describeIndexSuite(name: string, open: OpenStore): void {
  describe(`StoreAdapter indexes: ${name}`, () => {
    let store: StoreAdapter;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
      await writeThings(store, A, [
        thing('t1', 'Beta', 'o1', 30, ['x']),
        thing('t2', 'alpha', 'o1', 10, ['x', 'y']),
        thing('t3', 'Alpine', 'o2', 20),
        thing('t4', 'beta', 'o2', 40, ['y']),
      ]);
      await writeThings(store, B, [thing('t9', 'alpha', 'o9', 5)]);
    });
    afterEach(() => cleanup());

    it('walks an index in term order, ties by id, forward and reversed, per instance', async () => {
      expect(ids(await store.readIndex(A, { table: 'things', index: 'created', limit: 10 }))).toEqual(['t2', 't3', 't1', 't4']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'created', reverse: true, limit: 10 }))).toEqual(['t4', 't1', 't3', 't2']);
      const ci = await store.readIndex(A, { table: 'things', index: 'name_ci', limit: 10 });
      expect(ci.map((e) => [e.term, e.id, e.scope])).toEqual([
        ['alpha', 't2', 'o1'],
        ['alpine', 't3', 'o2'],
        ['beta', 't1', 'o1'],
        ['beta', 't4', 'o2'],
      ]);
      expect(ids(await store.readIndex(B, { table: 'things', index: 'name', limit: 10 }))).toEqual(['t9']);
    });

    it('narrows to one term or a prefix, continues after a cursor and skips an offset', async () => {
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', equals: 'beta', limit: 10 }))).toEqual(['t1', 't4']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', equals: 'beta', reverse: true, limit: 10 }))).toEqual(['t4', 't1']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', prefix: 'alp', limit: 10 }))).toEqual(['t2', 't3']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name', prefix: 'alp', limit: 10 }))).toEqual(['t2']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', prefix: 'zzz', limit: 10 }))).toEqual([]);
      const after = { term: 'beta', id: 't1' };
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', after, limit: 10 }))).toEqual(['t4']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', after, reverse: true, limit: 10 }))).toEqual(['t3', 't2']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'created', offset: 1, limit: 2 }))).toEqual(['t3', 't1']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'created', after: { term: '0000000000000010', id: 't2' }, offset: 1, limit: 10 }))).toEqual(['t1', 't4']);
    });

    it('filters terms by contains and suffix while walking and counting, with cursor and offset', async () => {
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', contains: 'lp', limit: 10 }))).toEqual(['t2', 't3']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', suffix: 'ta', reverse: true, limit: 10 }))).toEqual(['t4', 't1']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name', contains: 'eta', limit: 10 }))).toEqual(['t1', 't4']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', contains: 'a', offset: 1, limit: 2 }))).toEqual(['t3', 't1']);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', contains: 'a', after: { term: 'alpine', id: 't3' }, limit: 10 }))).toEqual(['t1', 't4']);
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', contains: 'et' })).toBe(2);
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', prefix: 'al', suffix: 'ne' })).toBe(1);
    });

    it('takes %, _ and \\ in prefixes, contains and suffixes literally (long and short patterns)', async () => {
      await writeThings(store, A, [
        thing('m1', '50%_off\\sale', 'o1', 50),
        thing('m2', '50xyoff/sale', 'o1', 51),
        thing('m3', '50%Aoff\\sale', 'o1', 52),
        thing('m4', 'a_b', 'o1', 53),
        thing('m5', 'axb', 'o1', 54),
        thing('m6', 'pre\u{10FFFF}x', 'o1', 55),
        thing('m7', 'prf', 'o1', 56),
      ]);
      const walk = async (range: { prefix?: string; contains?: string; suffix?: string }) => ids(await store.readIndex(A, { table: 'things', index: 'name', ...range, limit: 20 }));
      // Controls: each pattern's plain characters do match the rows they should.
      expect(await walk({ contains: 'off' })).toEqual(['m3', 'm1', 'm2']);
      expect(await walk({ suffix: 'b' })).toEqual(['m4', 'm5']);
      // The metacharacters match themselves only (LIKE would take % and _ as wildcards).
      expect(await walk({ contains: '%_off\\' })).toEqual(['m1']);
      expect(await walk({ contains: '%_' })).toEqual(['m1']);
      expect(await walk({ contains: '_' })).toEqual(['m1', 'm4']);
      expect(await walk({ contains: 'f\\s' })).toEqual(['m3', 'm1']);
      expect(await walk({ suffix: '_b' })).toEqual(['m4']);
      expect(await walk({ suffix: '\\sale' })).toEqual(['m3', 'm1']);
      expect(await walk({ prefix: '50%_' })).toEqual(['m1']);
      expect(await walk({ prefix: 'a_' })).toEqual(['m4']);
      expect(await walk({ prefix: '50%', contains: '_off', suffix: 'sale' })).toEqual(['m1']);
      expect(await store.countIndex(A, { table: 'things', index: 'name', contains: '%_off' })).toBe(1);
      // A prefix ending in the highest code point, and the prefix before it: exact bounds.
      expect(await walk({ prefix: 'pre\u{10FFFF}' })).toEqual(['m6']);
      expect(await walk({ prefix: 'pr' })).toEqual(['m6', 'm7']);
    });

    it('counts a range and keeps row counts per scope without reading rows', async () => {
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', equals: 'beta' })).toBe(2);
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', prefix: 'al' })).toBe(2);
      expect(await store.countIndex(A, { table: 'things', index: 'tag' })).toBe(4);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 2 },
        { scope: 'o2', count: 2 },
      ]);
      expect(await store.readSummaries(A, 'things', ['t2', 'nope'])).toEqual([{ scope: 'o1', terms: [['alpha'], ['alpha'], ['0000000000000010'], ['x', 'y']] }, undefined]);
      expect((await store.getRecords(A, 'things', ['t3', 'nope'])).map((r) => (r as { id: string } | undefined)?.id)).toEqual(['t3', undefined]);
    });

    it('answers a page with rows and count, and a walk with summaries, as readIndex, getRecords, rowCounts and readSummaries do (stores that offer them)', async () => {
      const page = await store.readIndexPage?.(A, { table: 'things', index: 'created', reverse: true, offset: 1, limit: 2 });
      if (page !== undefined) {
        expect(ids(page.entries)).toEqual(['t1', 't3']);
        expect(page.rows.map((r) => (r as { id: string }).id)).toEqual(['t1', 't3']);
        expect(page.total).toBe(4);
        // Past the last entry: no rows, the count still.
        expect(await store.readIndexPage!(A, { table: 'things', index: 'created', offset: 10, limit: 2 })).toEqual({ entries: [], rows: [], total: 4 });
        expect(await store.readIndexPage!(B, { table: 'things', index: 'created', limit: 2 })).toMatchObject({ total: 1 });
      }
      const walked = await store.readIndexWithSummaries?.(A, { table: 'things', index: 'name_ci', equals: 'beta', limit: 10 });
      if (walked !== undefined) {
        expect(walked).toEqual([
          { term: 'beta', id: 't1', scope: 'o1', summary: (await store.readSummaries(A, 'things', ['t1']))[0] },
          { term: 'beta', id: 't4', scope: 'o2', summary: (await store.readSummaries(A, 'things', ['t4']))[0] },
        ]);
        expect(walked[1]!.summary).toEqual({ scope: 'o2', terms: [['beta'], ['beta'], ['0000000000000040'], ['y']] });
        // With the rows of the first entries of the walk (reversed here): as getRecords reads them;
        // the rest without (control), and no row for an entry without one.
        const [t4, t1] = await store.getRecords(A, 'things', ['t4', 't1']);
        const withRows = await store.readIndexWithSummaries!(A, { table: 'things', index: 'name_ci', equals: 'beta', reverse: true, limit: 10, rows: 1 });
        expect(withRows.map((e) => [e.id, 'row' in e, e.row])).toEqual([
          ['t4', true, t4],
          ['t1', false, undefined],
        ]);
        const all = await store.readIndexWithSummaries!(A, { table: 'things', index: 'name_ci', prefix: 'b', limit: 10, rows: 5 });
        expect(all.map((e) => [e.id, e.row])).toEqual([
          ['t1', t1],
          ['t4', t4],
        ]);
        expect(all.map((e) => e.summary)).toEqual(walked.map((e) => e.summary));
      }
      expect(store.kind === 'postgres' ? [page !== undefined, walked !== undefined] : [true, true]).toEqual([true, true]);
    });

    it('pages only entries whose scope is a row of another table when asked, counting those scopes alone (stores that offer readIndexPage)', async () => {
      if (store.readIndexPage === undefined) return expect(store.kind).not.toBe('postgres');
      const scoped = { table: 'things', index: 'created', scopeRows: 'scope_rows' } as const;
      // Control: without scopeRows every scope's entries count.
      expect(await store.readIndexPage(A, { table: 'things', index: 'created', limit: 10 })).toMatchObject({ total: 4 });
      expect(await store.readIndexPage(A, { ...scoped, limit: 10 })).toEqual({ entries: [], rows: [], total: 0 });
      const head = await store.streamVersion(A, 'scope_row', 'o2');
      const written = await store.append(
        append(A, { expectations: [expect0('scope_row', 'o2', head)], events: [event('scope_row', 'o2', 'scope_row.set')], project: () => [{ table: 'scope_rows', id: 'o2', value: { id: 'o2' } }] }),
      );
      expect(written.ok).toBe(true);
      // o2 holds t3 (created 20) and t4 (40); the offset skips o2's entries only.
      const page = await store.readIndexPage(A, { ...scoped, offset: 1, limit: 5 });
      expect(ids(page.entries)).toEqual(['t4']);
      expect(page.rows.map((r) => (r as { id: string }).id)).toEqual(['t4']);
      expect(page.total).toBe(2);
      expect(ids((await store.readIndexPage(A, { ...scoped, reverse: true, limit: 5 })).entries)).toEqual(['t4', 't3']);
      // Past the last entry: the count of those scopes still; another instance has none of them.
      expect(await store.readIndexPage(A, { ...scoped, offset: 5, limit: 5 })).toEqual({ entries: [], rows: [], total: 2 });
      expect(await store.readIndexPage(B, { ...scoped, limit: 5 })).toEqual({ entries: [], rows: [], total: 0 });
    });

    it('search executor: a walk with a visibility check reads pages sized to the page asked, growing while entries are rejected; page and total exact', async () => {
      // 300 more things: every 30th (10) in o3, the rest in o4; t1..t4 stay in o1/o2.
      const more = Array.from({ length: 300 }, (_, i) => thing(`w${String(i).padStart(3, '0')}`, `n${i}`, i % 30 === 0 ? 'o3' : 'o4', 100 + i));
      await writeThings(store, A, more);
      let read = 0;
      const counted = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== 'readIndex') return Reflect.get(target, key, receiver) as unknown;
          return async (...args: Parameters<StoreAdapter['readIndex']>) => {
            const entries = await target.readIndex(...args);
            read += entries.length;
            return entries;
          };
        },
      });
      const table = TEST_CATALOG.tables[0]!;
      const search = async (scopes: readonly string[], offset: number, limit: number) => {
        read = 0;
        const result = await executeSearch<{ id: string }>(counted, {
          instanceId: A,
          table,
          sort: 'created',
          conditions: [],
          query: { offset, limit, asc: true },
          visible: (_id, scope) => scopes.includes(scope),
          scopeOnly: true,
        });
        return { ids: result.rows.map((r) => r.id), total: result.total, read };
      };
      // Every scope visible: the first page of offset + limit + 16 entries is all that is read.
      expect(await search(['o1', 'o2', 'o3', 'o4'], 0, 10)).toEqual({ ids: ['t2', 't3', 't1', 't4', 'w000', 'w001', 'w002', 'w003', 'w004', 'w005'], total: 304, read: 26 });
      expect(await search(['o1', 'o2', 'o3', 'o4'], 20, 5)).toMatchObject({ ids: ['w016', 'w017', 'w018', 'w019', 'w020'], total: 304, read: 41 });
      // o3 only (one entry in 30): pages grow (26, 208, then the rest) until the page is full; the
      // total counts o3's rows only. Control: o4 (rejected above) pages from its first entries.
      expect(await search(['o3'], 0, 10)).toEqual({ ids: Array.from({ length: 10 }, (_, i) => `w${String(i * 30).padStart(3, '0')}`), total: 10, read: 304 });
      // Its fifth row (w120) is entry 125: pages of 21 and 168 entries reach it.
      expect(await search(['o3'], 2, 3)).toEqual({ ids: ['w060', 'w090', 'w120'], total: 10, read: 189 });
      expect(await search(['o4'], 0, 3)).toEqual({ ids: ['w001', 'w002', 'w003'], total: 290, read: 19 });
      // Without a visibility check the same search is answered without walking (the row counts
      // and a page of the index, or readIndexPage).
      read = 0;
      const all = await executeSearch<{ id: string }>(counted, { instanceId: A, table, sort: 'created', conditions: [], query: { offset: 0, limit: 3, asc: true } });
      expect([all.rows.map((r) => r.id), all.total, read]).toEqual([['t2', 't3', 't1'], 304, store.readIndexPage === undefined ? 3 : 0]);
    });

    it('search executor: one candidate of an EQUALS reads its row but no summary; two read summaries for the order; a candidate whose row is gone is not counted', async () => {
      let summaries = 0;
      let hideRow: string | undefined;
      const counted = new Proxy(store, {
        get(target, key, receiver) {
          if (key === 'readSummaries') {
            return async (...args: Parameters<StoreAdapter['readSummaries']>) => {
              summaries += args[2].length;
              return target.readSummaries(...args);
            };
          }
          // Drops one row, as if it were removed between the index read and the row read.
          if (key === 'getRecords') {
            return async (...args: Parameters<StoreAdapter['getRecords']>) => (await target.getRecords(...args)).map((r, i) => (args[2][i] === hideRow ? undefined : r));
          }
          if (key === 'readIndexWithSummaries' || key === 'readIndexPage') return undefined; // the LMDB path: summaries read apart
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      const table = TEST_CATALOG.tables[0]!;
      const search = async (name: string, visibleScopes = ['o1', 'o2']) => {
        summaries = 0;
        const result = await executeSearch<{ id: string }>(counted, {
          instanceId: A,
          table,
          sort: 'created',
          conditions: [{ index: 'name_ci', equals: name }],
          query: { offset: 0, limit: 10, asc: true },
          visible: (_id, scope) => visibleScopes.includes(scope),
        });
        return { ids: result.rows.map((r) => r.id), total: result.total, summaries };
      };
      expect(await search('alpine')).toEqual({ ids: ['t3'], total: 1, summaries: 0 });
      // The visibility check still holds without the summary (the scope comes with the entry).
      expect(await search('alpine', ['o1'])).toEqual({ ids: [], total: 0, summaries: 0 });
      // Two candidates: their creation dates order them (t1 30, t4 40), read from the summaries.
      expect(await search('beta')).toEqual({ ids: ['t1', 't4'], total: 2, summaries: 2 });
      hideRow = 't3';
      expect(await search('alpine')).toEqual({ ids: [], total: 0, summaries: 0 });
      // Control: another row hidden, this one is listed and counted.
      hideRow = 't2';
      expect(await search('alpine')).toEqual({ ids: ['t3'], total: 1, summaries: 0 });
    });

    it('moves entries when a row changes (terms and scope) and drops them when it is removed', async () => {
      await writeThings(store, A, [thing('t2', 'Zeta', 'o2', 10, ['y']), { table: 'things', id: 't4', value: null }]);
      expect(ids(await store.readIndex(A, { table: 'things', index: 'name_ci', limit: 10 }))).toEqual(['t3', 't1', 't2']);
      expect((await store.readIndex(A, { table: 'things', index: 'tag', limit: 10 })).map((e) => [e.term, e.id, e.scope])).toEqual([
        ['x', 't1', 'o1'],
        ['y', 't2', 'o2'],
      ]);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 1 },
        { scope: 'o2', count: 2 },
      ]);
      expect(await store.readSummaries(A, 'things', ['t4'])).toEqual([undefined]);
    });

    it('keeps counts and summaries when a row is rewritten in its scope, and counts rows written several times in one append once', async () => {
      // t1 rewritten unchanged, t4 renamed in its scope: entries move, counts stay.
      await writeThings(store, A, [thing('t1', 'Beta', 'o1', 30, ['x']), thing('t4', 'Gamma', 'o2', 40, ['y'])]);
      expect((await store.readIndex(A, { table: 'things', index: 'name_ci', limit: 10 })).map((e) => [e.term, e.id, e.scope])).toEqual([
        ['alpha', 't2', 'o1'],
        ['alpine', 't3', 'o2'],
        ['beta', 't1', 'o1'],
        ['gamma', 't4', 'o2'],
      ]);
      expect(await store.readSummaries(A, 'things', ['t1', 't4'])).toEqual([
        { scope: 'o1', terms: [['Beta'], ['beta'], ['0000000000000030'], ['x']] },
        { scope: 'o2', terms: [['Gamma'], ['gamma'], ['0000000000000040'], ['y']] },
      ]);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 2 },
        { scope: 'o2', count: 2 },
      ]);
      // In one append: t5 created in o1 then moved to o3; t6 created and removed; two new rows of o4.
      await writeThings(store, A, [
        thing('t5', 'Five', 'o1', 50, ['q']),
        thing('t5', 'Five', 'o3', 50, ['q']),
        thing('t6', 'Six', 'o1', 60),
        { table: 'things', id: 't6', value: null },
        thing('t7', 'Seven', 'o4', 70, ['r']),
        thing('t8', 'Eight', 'o4', 80, ['r']),
      ]);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 2 },
        { scope: 'o2', count: 2 },
        { scope: 'o3', count: 1 },
        { scope: 'o4', count: 2 },
      ]);
      expect(await store.rowCounts(A, 'thing_tags')).toEqual([
        { scope: 'o1', count: 3 },
        { scope: 'o2', count: 1 },
        { scope: 'o3', count: 1 },
        { scope: 'o4', count: 2 },
      ]);
      expect((await store.readIndex(A, { table: 'things', index: 'tag', equals: 'q', limit: 10 })).map((e) => [e.id, e.scope])).toEqual([['t5', 'o3']]);
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', equals: 'six' })).toBe(0);
      expect(await store.readSummaries(A, 'things', ['t6'])).toEqual([undefined]);
    });

    it('indexes the entries inside a row as sub-rows, moved and dropped with their parent row', async () => {
      const tags = async () => (await store.readIndex(A, { table: 'thing_tags', index: 'tag', limit: 10 })).map((e) => [e.term, e.id, e.scope]);
      expect(await tags()).toEqual([
        ['x', 't1/x', 'o1'],
        ['x', 't2/x', 'o1'],
        ['y', 't2/y', 'o1'],
        ['y', 't4/y', 'o2'],
      ]);
      expect(ids(await store.readIndex(A, { table: 'thing_tags', index: 'parent', equals: 't2', limit: 10 }))).toEqual(['t2/x', 't2/y']);
      expect(await store.rowCounts(A, 'thing_tags')).toEqual([
        { scope: 'o1', count: 3 },
        { scope: 'o2', count: 1 },
      ]);
      expect(await store.readSummaries(A, 'thing_tags', ['t2/y', 't3/x'])).toEqual([{ scope: 'o1', terms: [['t2'], ['y']] }, undefined]);
      // The parent's list of entries is no row of its own.
      expect(await store.rowCounts(A, 'thing_tags#')).toEqual([]);
      // t2 loses x, gains z and moves to o2; t4 is removed; t3 gains its first entry.
      await writeThings(store, A, [thing('t2', 'alpha', 'o2', 10, ['y', 'z']), { table: 'things', id: 't4', value: null }, thing('t3', 'Alpine', 'o2', 20, ['w'])]);
      expect(await tags()).toEqual([
        ['w', 't3/w', 'o2'],
        ['x', 't1/x', 'o1'],
        ['y', 't2/y', 'o2'],
        ['z', 't2/z', 'o2'],
      ]);
      expect(await store.rowCounts(A, 'thing_tags')).toEqual([
        { scope: 'o1', count: 1 },
        { scope: 'o2', count: 3 },
      ]);
      expect(await store.readSummaries(A, 'thing_tags', ['t2/x', 't4/y', 't2/z'])).toEqual([undefined, undefined, { scope: 'o2', terms: [['t2'], ['z']] }]);
      // A row left with no entries drops them all; the other instance is untouched.
      await writeThings(store, A, [thing('t2', 'alpha', 'o2', 10, [])]);
      expect(ids(await store.readIndex(A, { table: 'thing_tags', index: 'parent', equals: 't2', limit: 10 }))).toEqual([]);
      expect(ids(await store.readIndex(A, { table: 'thing_tags', index: 'parent', equals: 't1', limit: 10 }))).toEqual(['t1/x']);
      expect(await store.rowCounts(B, 'thing_tags')).toEqual([]);
    });

    it('keeps a summary-only parent index in the summaries and writes no entry for it; the sub-rows are walked by their other indexes', async () => {
      const parentOf = async (table: string, id: string) => (await store.readSummaries(A, table, [id]))[0]?.terms[0];
      for (const table of ['thing_tags', 'thing_tag_notes']) {
        expect(ids(await store.readIndex(A, { table, index: 'tag', equals: 'y', limit: 10 })), table).toEqual(['t2/y', 't4/y']);
        expect(await parentOf(table, 't2/y'), table).toEqual(['t2']);
        expect(await store.countIndex(A, { table, index: 'tag' }), table).toBe(4);
      }
      // Control: the walked parent index has the entries the summary-only one leaves out.
      expect(ids(await store.readIndex(A, { table: 'thing_tags', index: 'parent', equals: 't2', limit: 10 }))).toEqual(['t2/x', 't2/y']);
      expect(await store.countIndex(A, { table: 'thing_tags', index: 'parent' })).toBe(4);
      expect(ids(await store.readIndex(A, { table: 'thing_tag_notes', index: 'parent', limit: 10 }))).toEqual([]);
      expect(await store.countIndex(A, { table: 'thing_tag_notes', index: 'parent' })).toBe(0);
      // A moved and a dropped entry leave the summaries as they leave the walked index.
      await writeThings(store, A, [thing('t2', 'alpha', 'o1', 10, ['x'])]);
      expect(await parentOf('thing_tag_notes', 't2/y')).toBeUndefined();
      expect(await parentOf('thing_tag_notes', 't2/x')).toEqual(['t2']);
      expect(ids(await store.readIndex(A, { table: 'thing_tag_notes', index: 'tag', equals: 'y', limit: 10 }))).toEqual(['t4/y']);
      // The executor refuses to sort or filter by it (it would find nothing); control: the walked one.
      const [walked, notes] = [TEST_CATALOG.tables[1]!, TEST_CATALOG.tables[2]!];
      const query = { offset: 0, limit: 10, asc: true };
      const bySort = (table: typeof walked) => executeSearch(store, { instanceId: A, table, sort: 'parent', conditions: [], query });
      const byFilter = (table: typeof walked) => executeSearch(store, { instanceId: A, table, sort: 'tag', conditions: [{ index: 'parent', equals: 't1' }], query });
      expect((await bySort(walked)).total).toBe(3);
      expect((await byFilter(walked)).total).toBe(1);
      await expect(bySort(notes)).rejects.toMatchObject({ name: 'ProgrammerError' });
      await expect(byFilter(notes)).rejects.toMatchObject({ name: 'ProgrammerError' });
    });

    it('writes no entry when the append is refused or its projection throws', async () => {
      const stale = await store.append(append(A, { expectations: [expect0('thing', 't1', 0)], events: [event('thing', 't1', 'thing.set')], project: () => [thing('t1', 'Omega', 'o1', 1)] }));
      expect(stale.ok).toBe(false);
      await expect(
        store.append(
          append(A, {
            expectations: [expect0('thing', 't5')],
            events: [event('thing', 't5', 'thing.set')],
            project: () => {
              throw new Error('boom');
            },
          }),
        ),
      ).rejects.toThrow('boom');
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', equals: 'omega' })).toBe(0);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 2 },
        { scope: 'o2', count: 2 },
      ]);
    });

    it('an append that fails after indexing a row of a new scope leaves no trace: the next new scope reads as itself, in every index', async () => {
      // The first row's entries are written (on LMDB with a number given to o7) before the NUL id fails the append.
      const failing = append(A, {
        expectations: [expect0('thing', 't7'), expect0('thing', 't8')],
        events: [event('thing', 't7', 'thing.set'), event('thing', 't8', 'thing.set')],
        project: () => [thing('t7', 'Gamma', 'o7', 50, ['z']), thing('bad\u0000id', 'Delta', 'o8', 60)],
      });
      await expect(store.append(failing)).rejects.toThrow('NUL');
      expect(await store.countIndex(A, { table: 'things', index: 'name_ci', equals: 'gamma' })).toBe(0);
      // o8 is the first scope numbered after the failure (LMDB: the number o7 had for a moment).
      await writeThings(store, A, [thing('t8', 'Delta', 'o8', 60, ['z']), thing('t6', 'Epsilon', 'o1', 70)]);
      const entries = (index: string) => store.readIndex(A, { table: 'things', index, limit: 10 }).then((found) => found.filter((e) => e.id === 't8' || e.id === 't6').map((e) => [e.id, e.scope]));
      // Delta before Epsilon, 60 before 70.
      for (const index of ['name', 'name_ci', 'created']) expect(await entries(index)).toEqual([['t8', 'o8'], ['t6', 'o1']]);
      expect((await store.readIndex(A, { table: 'thing_tags', index: 'tag', equals: 'z', limit: 10 })).map((e) => [e.id, e.scope])).toEqual([['t8/z', 'o8']]);
      // Positive control: the scopes written before, read the same way.
      expect((await store.readIndex(A, { table: 'things', index: 'name_ci', equals: 'alpine', limit: 10 })).map((e) => [e.id, e.scope])).toEqual([['t3', 'o2']]);
      expect(await store.rowCounts(A, 'things')).toEqual([
        { scope: 'o1', count: 3 },
        { scope: 'o2', count: 2 },
        { scope: 'o8', count: 1 },
      ]);
    });

    it('keeps an index across instances: every instance\'s entries in (term, instance, id) order up to a bound, moved and removed with their rows', async () => {
      await writeDue(store, B, 'k', [30, 10]);
      await writeDue(store, A, 'k', [20]);
      await writeDue(store, 'inst-c', 'k', [10]);
      await writeDue(store, 'inst-c', 'j', [10]);
      expect(await dueThrough(store, 100)).toEqual([[10, B, 'k'], [10, 'inst-c', 'j'], [10, 'inst-c', 'k'], [20, A, 'k'], [30, B, 'k']]);
      // The bound is inclusive; a term past it is left out.
      expect(await dueThrough(store, 19)).toEqual([[10, B, 'k'], [10, 'inst-c', 'j'], [10, 'inst-c', 'k']]);
      expect(await dueThrough(store, 20)).toEqual([[10, B, 'k'], [10, 'inst-c', 'j'], [10, 'inst-c', 'k'], [20, A, 'k']]);
      expect(await dueThrough(store, 9)).toEqual([]);
      // A changed row moves, a removed one leaves; the per-instance index moves with them.
      await writeDue(store, B, 'k', [40]);
      await writeDue(store, 'inst-c', 'k', null);
      expect(await dueThrough(store, 100)).toEqual([[10, 'inst-c', 'j'], [20, A, 'k'], [40, B, 'k']]);
      expect(ids(await store.readIndex(B, { table: 'web_keys', index: 'since', limit: 10 }))).toEqual(['k']);
      // A refused append leaves no entry.
      const refused = await store.append(append(A, { expectations: [expect0('due', 'k', 7)], events: [event('due', 'k', 'due.set')], project: () => [{ table: 'web_keys', id: 'k2', value: { id: 'k2', state: { since: [1] } } }] }));
      expect(refused.ok).toBe(false);
      expect(await dueThrough(store, 100)).toEqual([[10, 'inst-c', 'j'], [20, A, 'k'], [40, B, 'k']]);
      // Only an index declared across instances is read that way.
      expect(ids(await store.readIndex(A, { table: 'web_keys', index: 'plain', limit: 10 }))).toEqual(['k']);
      await expect(collect(store.readAcrossInstances('web_keys', 'plain', numberTerm(100)))).rejects.toThrow('not an index kept across instances');
      await expect(collect(store.readAcrossInstances('things', 'name', 'z'))).rejects.toThrow('not an index kept across instances');
    });

    it('reads an index across instances past a page, and in a store a dump was loaded into', async () => {
      const instances = Array.from({ length: 260 }, (_, i) => `inst-${String((i * 7) % 260).padStart(3, '0')}`);
      for (const [i, instanceId] of instances.entries()) await writeDue(store, instanceId, 'k', [1_000 + (i % 3)]);
      const expected = instances.map((instanceId, i) => [1_000 + (i % 3), instanceId, 'k']).sort((x, y) => Number(x[0]) - Number(y[0]) || String(x[1]).localeCompare(String(y[1])));
      expect(await dueThrough(store, 2_000)).toEqual(expected);
      const copy = await open();
      try {
        await copy.store.load(store.dump());
        expect(await dueThrough(copy.store, 2_000)).toEqual(expected);
        expect(await dueThrough(copy.store, 1_000)).toEqual(expected.filter(([time]) => time === 1_000));
      } finally {
        await copy.cleanup();
      }
    });

    it('rebuilds the indexes of a loaded dump in the target store', async () => {
      const copy = await open();
      try {
        await copy.store.load(store.dump());
        expect(ids(await copy.store.readIndex(A, { table: 'things', index: 'name_ci', limit: 10 }))).toEqual(['t2', 't3', 't1', 't4']);
        expect(await copy.store.rowCounts(B, 'things')).toEqual([{ scope: 'o9', count: 1 }]);
        expect(ids(await copy.store.readIndex(A, { table: 'thing_tags', index: 'tag', limit: 10 }))).toEqual(['t1/x', 't2/x', 't2/y', 't4/y']);
      } finally {
        await copy.cleanup();
      }
    });
  });
}
