/**
 * Indexes of the LMDB store (key layout: keys.ts). Written inside the append's write
 * transaction: for every row written, the row's old summary is read, the index keys whose
 * terms changed are removed and added, the summary is replaced when it changed and the
 * per-scope row count moves; when any index entry changed, the table's index epoch is put too
 * (term columns, lmdb-term-columns.ts; a sub-row table shares its parent table's). Count changes
 * and epochs are gathered per write (IndexBatch: an append, a page of an index build) and written
 * at its end, once per (table, scope) and once per stored table: a row whose scope stays, or
 * several rows of one table in one append, cost one count read and write or none, one epoch
 * put. Reads walk key ranges only (no row is decoded); CONTAINS and ENDS_WITH over a whole
 * index read its term column when it has one.
 */
import type { Key, RootDatabase } from 'lmdb';
import type { AcrossInstancesEntry, IndexCatalog, IndexEntry, IndexRange, IndexReads, IndexWalk, RowSummary, TableIndexes } from '../../actors/index.js';
import { isKeptAcrossInstances, storedTableOf, subRowListTable, summarize } from '../../actors/index.js';
import * as keys from './keys.js';
import { createIndexCodes, type IndexCodes } from './lmdb-index-codes.js';
import { createScopeReader, scopeValue, type ScopeReader } from './lmdb-scope-codes.js';
import { createTermColumns, type TermColumns } from './lmdb-term-columns.js';
import { countColumn, epochTableOf, readColumn, type TermColumnOptions } from './term-columns.js';

type Db = RootDatabase<unknown, Key>;


/**
 * Row-count changes and index epochs of one write (an append, a page of an index build),
 * written by `write` inside the same transaction: the stored counts end as if each row had
 * moved them itself, and each table whose entries changed gets one new epoch.
 */
export class IndexBatch {
  private readonly deltas = new Map<string, { instanceId: string; table: string; scope: string; delta: number }>();
  private readonly changed = new Map<string, { instanceId: string; table: string }>();

  count(instanceId: string, table: string, scope: string, delta: number): void {
    // NUL separates the parts: key parts never hold one (keys.ts refuses them when written).
    const id = `${instanceId}\u0000${table}\u0000${scope}`;
    const entry = this.deltas.get(id);
    if (entry === undefined) this.deltas.set(id, { instanceId, table, scope, delta });
    else entry.delta += delta;
  }

  /** An index entry of the table changed. */
  touch(instanceId: string, table: string): void {
    this.changed.set(`${instanceId}\u0000${table}`, { instanceId, table });
  }

  /** Writes the changed counts and epochs (call inside the write transaction the rows were written in). */
  write(db: Db): void {
    for (const { instanceId, table, scope, delta } of this.deltas.values()) {
      if (delta === 0) continue;
      const key = keys.rowCountKey(instanceId, table, scope);
      const count = Number(db.get(key) ?? 0) + delta;
      if (count > 0) db.put(key, count);
      else db.remove(key);
    }
    for (const { instanceId, table } of this.changed.values()) bumpEpoch(db, instanceId, table);
    this.deltas.clear();
    this.changed.clear();
  }
}

/**
 * Updates the indexes a stored row feeds (tablesOf): its own table's, and for sub-row tables
 * those of each entry — entries of `previous` (the row as stored before this write, undefined
 * when there was none or nothing of it was indexed yet) gone from the row leave their indexes
 * (call inside a write transaction). Counts and epochs go to `batch` when given (the caller
 * writes it), else they are written before returning.
 */
export function writeIndexes(db: Db, tables: readonly TableIndexes[], instanceId: string, id: string, value: unknown, write: { readonly codes: IndexCodes; readonly previous?: unknown; readonly batch?: IndexBatch }): void {
  const pending = write.batch ?? new IndexBatch();
  const { codes } = write;
  for (const table of tables) {
    if (table.source === undefined) {
      writeRowIndexes(db, { table, codes, batch: pending }, instanceId, id, value);
      continue;
    }
    const rows = value === null || value === undefined ? [] : table.source.rows(id, value);
    if (write.previous !== null && write.previous !== undefined) {
      // The entries indexed for the previous row are those the declaration finds in it (the
      // catalog version is the same, or the indexes were rebuilt): no list of them is kept.
      const now = new Set(rows.map((r) => r.id));
      for (const old of table.source.rows(id, write.previous)) if (!now.has(old.id)) writeRowIndexes(db, { table, codes, batch: pending }, instanceId, old.id, undefined);
    }
    for (const row of rows) writeRowIndexes(db, { table, codes, batch: pending }, instanceId, row.id, row.value);
  }
  if (write.batch === undefined) pending.write(db);
}

/** Whether a row of these tables needs its previous value to be indexed (it feeds a sub-row table). */
export function needsPrevious(tables: readonly TableIndexes[]): boolean {
  return tables.some((t) => t.source !== undefined);
}

/**
 * Updates a row's index entries and summary (call inside a write transaction); its count
 * change, and the table's epoch when an entry changed, go to `batch`, which the caller writes.
 */
function writeRowIndexes(db: Db, target: { readonly table: TableIndexes; readonly codes: IndexCodes; readonly batch: IndexBatch }, instanceId: string, id: string, value: unknown): void {
  const { table, codes, batch } = target;
  const summaryKey = keys.summaryKey(instanceId, table.table, id);
  const before = toSummary(db.get(summaryKey));
  const after = value === null || value === undefined ? undefined : summarize(table, value);
  if (before === undefined && after === undefined) return;
  const moved = before !== undefined && after !== undefined && before.scope !== after.scope;
  let changed = false;
  // The scope as the new entries store it (lmdb-scope-codes.ts), looked up once they need it.
  let stored: string | number | undefined;
  table.indexes.forEach((index, i) => {
    if (index.summaryOnly === true) return; // kept in the summary alone
    // Every index of the catalog has a code (the same catalog numbered them).
    const code = codes.codeOf(table.table, index.name)!;
    const old = before?.terms[i] ?? [];
    const next = after?.terms[i] ?? [];
    const across = index.acrossInstances === true;
    for (const term of old) {
      if (moved || !next.includes(term)) {
        db.remove(keys.indexKey(instanceId, code, term, id));
        if (across) db.remove(keys.acrossKey(table.table, index.name, term, instanceId, id));
        changed = true;
      }
    }
    for (const term of next) {
      if (moved || !old.includes(term)) {
        stored ??= scopeValue(db, instanceId, after!.scope);
        db.put(keys.indexKey(instanceId, code, term, id), stored);
        if (across) db.put(keys.acrossKey(table.table, index.name, term, instanceId, id), null);
        changed = true;
      }
    }
  });
  // A sub-row table shares its parent table's epoch: they are written together, one put for both.
  if (changed) batch.touch(instanceId, storedTableOf(table));
  if (after === undefined) {
    batch.count(instanceId, table.table, before!.scope, -1);
    db.remove(summaryKey);
    return;
  }
  if (before !== undefined && !moved && sameTerms(before.terms, after.terms)) return;
  if (before === undefined || moved) {
    if (before !== undefined) batch.count(instanceId, table.table, before.scope, -1);
    batch.count(instanceId, table.table, after.scope, 1);
  }
  db.put(summaryKey, packSummary(after));
}

/**
 * A summary as stored: [scope, terms per index], where a term list equal to an earlier index's
 * is that index's position and the list [scope] is -1 — a user's username_ci and email_ci
 * terms are mostly its username and email, `changed` is `created` until the first change, and
 * `org` is the scope (237 -> 158 bytes for a user). toSummary expands them; summaries written
 * before (lists only) read as they are.
 */
function packSummary(summary: RowSummary): unknown[] {
  const terms = summary.terms;
  return [
    summary.scope,
    terms.map((list, i) => {
      if (list.length === 0) return list;
      for (let j = 0; j < i; j += 1) if (sameStrings(terms[j]!, list)) return j;
      return list.length === 1 && list[0] === summary.scope ? -1 : list;
    }),
  ];
}

/**
 * Gives the table's indexes a new epoch: a random value (a blind put, no read), so a term column
 * built at any earlier epoch no longer matches, even one from before the key was last removed.
 */
function bumpEpoch(db: Db, instanceId: string, table: string): void {
  db.put(keys.indexEpochKey(instanceId, table), Math.floor(Math.random() * Number.MAX_SAFE_INTEGER));
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function sameTerms(a: readonly (readonly string[])[], b: readonly (readonly string[])[]): boolean {
  return a.length === b.length && a.every((terms, i) => Array.isArray(terms) && sameStrings(terms, b[i]!));
}

function toSummary(raw: unknown): RowSummary | undefined {
  if (!Array.isArray(raw)) return undefined;
  const [scope, stored] = raw as [string, (string[] | number)[]];
  const terms: (readonly string[])[] = [];
  for (const list of stored) terms.push(typeof list !== 'number' ? list : list === -1 ? [scope] : (terms[list] ?? []));
  return { scope, terms };
}

/**
 * Removes every summary and count of a table (the rebuild starts from nothing), and the lists of
 * sub-row ids per parent that stores of catalog versions before 5 kept. Its index keys go with
 * the instance's (clearInstanceIndexKeys).
 */
export function clearTableIndexes(db: Db, instanceId: string, table: TableIndexes): void {
  const name = table.table;
  const ranges = [keys.summaryRange(instanceId, name), keys.summaryRange(instanceId, subRowListTable(name)), keys.rowCountRange(instanceId, name)];
  for (const range of ranges) {
    for (const key of db.getKeys(range)) db.remove(key);
  }
  // A sub-row table's own epoch key (catalog versions before 5) gives way to its parent table's.
  if (table.source !== undefined) db.remove(keys.indexEpochKey(instanceId, name));
  bumpEpoch(db, instanceId, storedTableOf(table));
}

/** Whether the file holds any key of an index kept across instances. */
export function hasAcrossKeys(db: Db): boolean {
  return Array.from(db.getKeys({ ...keys.acrossAllRange(), limit: 1 })).length > 0;
}

/** Removes every key of the indexes kept across instances (a full index build writes them again). */
export function clearAcrossKeys(db: Db): void {
  for (const key of db.getKeys(keys.acrossAllRange())) db.remove(key);
}

/**
 * The entries of an index kept across instances with a term at most `through`, in key order:
 * a seek per page, so no read transaction stays open while the caller awaits between entries.
 */
export async function* readAcrossInstances(db: Db, catalog: IndexCatalog, table: string, index: string, through: string): AsyncGenerator<AcrossInstancesEntry> {
  if (!isKeptAcrossInstances(catalog, table, index)) throw new Error(`readAcrossInstances: ${table}.${index} is not an index kept across instances`);
  if (!keys.isKeyPart(through)) return;
  let after: keys.StoreKey | undefined;
  for (;;) {
    const page = Array.from(db.getKeys({ ...keys.acrossRange(table, index, through, after), limit: ACROSS_PAGE })) as keys.StoreKey[];
    for (const key of page) yield { term: String(key[3]), instanceId: String(key[4]), id: String(key[5]) };
    if (page.length < ACROSS_PAGE) return;
    after = page[page.length - 1];
  }
}

/** Entries read per seek of readAcrossInstances. */
const ACROSS_PAGE = 256;

/**
 * Removes every index key of an instance, in this layout and in the one before catalog version 7,
 * and its scope dictionary (keys.instanceIndexRanges): a rebuild renumbers the codes and the
 * scopes, so an index dropped or moved leaves nothing behind.
 */
export function clearInstanceIndexKeys(db: Db, instanceId: string): void {
  for (const range of keys.instanceIndexRanges(instanceId)) {
    for (const key of db.getKeys(range)) db.remove(key);
  }
}

export function createIndexReads(db: Db, options: TermColumnOptions | undefined, catalog: IndexCatalog): IndexReads {
  const codes = createIndexCodes(catalog);
  const scopes = createScopeReader(db);
  const columns = createTermColumns(db, options ?? {}, { epochTable: epochTableOf(catalog), codeOf: codes.codeOf, scopes });
  const context: ReadContext = { columns, codes, scopes };
  return {
    readIndex: async (instanceId, walk) => readIndex(db, context, instanceId, walk),
    countIndex: async (instanceId, range: IndexRange) => countIndex(db, context, instanceId, range),
    rowCounts: async (instanceId, table) =>
      Array.from(db.getRange(keys.rowCountRange(instanceId, table)), ({ key, value }) => ({ scope: String(keys.lastPart(key)), count: Number(value) })),
    readSummaries: async (instanceId, table, ids) => ids.map((id) => (keys.isKeyPart(id) ? toSummary(db.get(keys.summaryKey(instanceId, table, id))) : undefined)),
    getRecords: async (instanceId, table, ids) => ids.map((id) => (keys.isKeyPart(id) ? db.get(keys.recordKey(instanceId, table, id)) : undefined)),
  };
}

function isRangeStorable(range: IndexRange): boolean {
  return (range.equals === undefined || keys.isKeyPart(range.equals)) && (range.prefix === undefined || keys.isKeyPart(range.prefix));
}

/** The term filters of a range, or undefined when it has none. */
function termFilter(range: IndexRange): ((term: string) => boolean) | undefined {
  const { contains, suffix } = range;
  if (contains === undefined && suffix === undefined) return undefined;
  return (term) => (contains === undefined || term.includes(contains)) && (suffix === undefined || term.endsWith(suffix));
}

/** Whether the filter runs over the whole index, which a term column holds. */
function isWholeIndex(range: IndexRange): boolean {
  return range.equals === undefined && range.prefix === undefined;
}

/** What an index read needs beside the database: the term columns, the catalog's key codes, the scopes of entries' values. */
interface ReadContext {
  readonly columns: TermColumns;
  readonly codes: IndexCodes;
  readonly scopes: ScopeReader;
}

function countIndex(db: Db, { columns, codes }: ReadContext, instanceId: string, range: IndexRange): number {
  const code = codes.codeOf(range.table, range.index);
  // An index the catalog does not have holds no entries.
  if (code === undefined || !isRangeStorable(range)) return 0;
  const bounds = keys.indexRange(instanceId, code, range);
  const filter = termFilter(range);
  if (filter === undefined) return db.getCount(bounds);
  if (isWholeIndex(range)) {
    const column = columns.columnOf(instanceId, range.table, range.index);
    if (column !== undefined) return countColumn(column, range);
    columns.walked(instanceId, range.table, range.index);
  }
  let count = 0;
  for (const key of db.getKeys(bounds)) if (filter(String((key as unknown[])[keys.INDEX_TERM]))) count += 1;
  return count;
}

function inRange(range: IndexRange, term: string): boolean {
  if (range.equals !== undefined) return term === range.equals;
  return range.prefix === undefined || term.startsWith(range.prefix);
}

function readIndex(db: Db, { columns, codes, scopes }: ReadContext, instanceId: string, walk: IndexWalk): IndexEntry[] {
  const code = codes.codeOf(walk.table, walk.index);
  if (code === undefined || !isRangeStorable(walk) || !(walk.limit > 0)) return [];
  const filter = termFilter(walk);
  if (filter !== undefined && isWholeIndex(walk)) {
    const column = columns.columnOf(instanceId, walk.table, walk.index);
    if (column !== undefined) return readColumn(column, walk);
    columns.walked(instanceId, walk.table, walk.index);
  }
  const range = keys.indexRange(instanceId, code, walk);
  const reverse = walk.reverse === true;
  let start: Key = reverse ? range.end : range.start;
  const end: Key = reverse ? range.start : range.end;
  let skip = Math.max(0, Math.floor(walk.offset ?? 0));
  const cursor = walk.after;
  // Only a cursor inside the range moves the start (a stale one never widens the walk).
  if (cursor !== undefined && keys.isKeyPart(cursor.term) && keys.isKeyPart(cursor.id) && inRange(walk, cursor.term)) {
    const from = keys.indexKey(instanceId, code, cursor.term, cursor.id);
    start = from;
    // The walk starts at the cursor itself when it still exists: step over it.
    if (db.doesExist(from)) skip += 1;
  }
  const entries: IndexEntry[] = [];
  if (filter !== undefined) {
    // Keys only; a matching key's value (the scope) is read alone, and the offset counts matches.
    for (const key of db.getKeys({ start, end, reverse })) {
      const parts = key as unknown[];
      const term = String(parts[keys.INDEX_TERM]);
      if (!filter(term)) continue;
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      entries.push({ term, id: String(parts[keys.INDEX_ID]), scope: scopes.scopeOf(instanceId, db.get(key)) });
      if (entries.length >= walk.limit) break;
    }
    return entries;
  }
  for (const { key, value } of db.getRange({ start, end, reverse, offset: skip })) {
    const parts = key as unknown[];
    entries.push({ term: String(parts[keys.INDEX_TERM]), id: String(parts[keys.INDEX_ID]), scope: scopes.scopeOf(instanceId, value) });
    if (entries.length >= walk.limit) break;
  }
  return entries;
}
