/**
 * Term columns of the LMDB store (term-columns.ts holds and reads them): a column is built from
 * one walk of the index's keys the first time a filter needs it (decoding each key costs about as
 * much as the test itself many times over: 100,000 keys, 30–40 ms), and answers later filters
 * from memory while the table's index epoch is the one it was built at.
 *
 * The epoch is one key per (instance, stored table) (keys.indexEpochKey; a sub-row table, written
 * only with its parent rows, shares its parent table's), put with a fresh random value
 * inside the append's write transaction whenever a row's index entries change
 * (lmdb-indexes.ts `writeRowIndexes`), so a column is exact: every thread and process sharing
 * the environment reads the key at the same snapshot as the index keys themselves, and a
 * column whose epoch is no longer the stored one is built again. The epoch is read before the
 * walk: a write landing between the two leaves the column newer than its epoch, which only
 * costs a rebuild.
 *
 * Memory is bounded: a column is built only for tables of at most `maxEntries` rows (the
 * maintained row counts; a walk reaching more entries gives up), and the columns held together
 * keep at most `maxTotalEntries` entries, the least recently used dropped first. Larger
 * indexes keep the walk of their keys.
 */
import type { Key, RootDatabase } from 'lmdb';
import * as keys from './keys.js';
import type { ScopeReader } from './lmdb-scope-codes.js';
import { columnName, createColumnCache, toColumn, type TermColumn, type TermColumnOptions } from './term-columns.js';

type Db = RootDatabase<unknown, Key>;

export interface TermColumns {
  /** The index's column as of the table's current epoch, or undefined when the index is too large for one. */
  columnOf(instanceId: string, table: string, index: string): TermColumn | undefined;
  /** Reports a walk of the index's keys that a filter made without a column. */
  walked(instanceId: string, table: string, index: string): void;
}

/** How the catalog lays a table's indexes out in the store. */
export interface ColumnLayout {
  /** The table whose epoch covers a table's indexes (a sub-row table's parent table). */
  epochTable(table: string): string;
  /** The index's key code (lmdb-index-codes.ts). */
  codeOf(table: string, index: string): string | undefined;
  /** The scopes of the entries' values (lmdb-scope-codes.ts). */
  readonly scopes: ScopeReader;
}

export function createTermColumns(db: Db, options: TermColumnOptions, layout: ColumnLayout): TermColumns {
  const { epochTable } = layout;
  const cache = createColumnCache(options);
  const { maxEntries } = cache;
  const onWalk = options.onWalk;
  return {
    columnOf(instanceId, table, index) {
      if (maxEntries === 0) return undefined;
      const epoch = db.get(keys.indexEpochKey(instanceId, epochTable(table)));
      const name = columnName(instanceId, table, index);
      const known = cache.get(name);
      if (known !== undefined && known.epoch === epoch) return known.column;
      const code = layout.codeOf(table, index);
      // An index the catalog does not have is never read (lmdb-indexes.ts answers nothing).
      const column = code === undefined ? undefined : rowCount(db, instanceId, table) > maxEntries ? undefined : buildColumn(db, { instanceId, table, index, code, scopes: layout.scopes }, maxEntries, onWalk);
      cache.hold(name, { epoch, column, buildMs: 0, spentMs: 0 });
      return column;
    },
    walked(instanceId, table, index) {
      onWalk?.({ instanceId, table, index, purpose: 'filter' });
    },
  };
}

function rowCount(db: Db, instanceId: string, table: string): number {
  let count = 0;
  for (const { value } of db.getRange(keys.rowCountRange(instanceId, table))) count += Number(value);
  return count;
}

/** One walk of the index's keys and values; undefined when it holds more than `max` entries (a multi-valued index). */
function buildColumn(db: Db, where: { instanceId: string; table: string; index: string; code: string; scopes: ScopeReader }, max: number, onWalk: TermColumnOptions['onWalk']): TermColumn | undefined {
  const { instanceId, table, index, code, scopes: reader } = where;
  onWalk?.({ instanceId, table, index, purpose: 'column' });
  const terms: string[] = [];
  const ids: string[] = [];
  const scopes: string[] = [];
  for (const { key, value } of db.getRange(keys.indexRange(instanceId, code, {}))) {
    if (terms.length >= max) return undefined;
    const parts = key as unknown[];
    terms.push(String(parts[keys.INDEX_TERM]));
    ids.push(String(parts[keys.INDEX_ID]));
    // Many rows share a scope (an organization's users): the reader hands out one string each.
    scopes.push(reader.scopeOf(instanceId, value));
  }
  return toColumn(terms, ids, scopes);
}
