/**
 * Term columns of the LMDB store (docs/architecture.md "Indexes and the search executor"):
 * CONTAINS / ENDS_WITH filters test every term of an index, and decoding each key of the index
 * costs about as much as the test itself many times over (100,000 keys: 30–40 ms). A column
 * holds one index's entries — term, id and scope, in key order — in plain arrays, built from one
 * walk of the index's keys the first time a filter needs it, and answers later filters from
 * memory while the table's index epoch is the one it was built at.
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
import type { IndexEntry, IndexWalk } from '../../actors/index.js';
import * as keys from './keys.js';
import type { ScopeReader } from './lmdb-scope-codes.js';

type Db = RootDatabase<unknown, Key>;

export interface TermColumnOptions {
  /** Largest column built, in entries (default 200,000); 0 turns columns off. */
  readonly maxEntries?: number;
  /** Entries of all columns held at once (default 600,000), least recently used dropped first. */
  readonly maxTotalEntries?: number;
  /** Hears of every walk of a whole index's keys for a term filter: to build a column, or to filter without one (tests). */
  readonly onWalk?: (walk: TermWalk) => void;
}

export interface TermWalk {
  readonly instanceId: string;
  readonly table: string;
  readonly index: string;
  readonly purpose: 'column' | 'filter';
}

/** One index's entries in key order (term, then id). */
export interface TermColumn {
  readonly terms: readonly string[];
  readonly ids: readonly string[];
  readonly scopes: readonly string[];
}

export interface TermColumns {
  /** The index's column as of the table's current epoch, or undefined when the index is too large for one. */
  columnOf(instanceId: string, table: string, index: string): TermColumn | undefined;
  /** Reports a walk of the index's keys that a filter made without a column. */
  walked(instanceId: string, table: string, index: string): void;
}

interface Held {
  readonly epoch: unknown;
  /** Undefined: the index was larger than maxEntries at this epoch (walk instead). */
  readonly column: TermColumn | undefined;
  readonly size: number;
}

const MAX_ENTRIES = 200_000;
const MAX_TOTAL_ENTRIES = 600_000;
/** Columns and too-large markers held at once (a marker has no entries, but is a Map entry). */
const MAX_HELD = 1_000;

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
  const maxEntries = Math.max(0, options.maxEntries ?? MAX_ENTRIES);
  const maxTotal = Math.max(maxEntries, options.maxTotalEntries ?? MAX_TOTAL_ENTRIES);
  const onWalk = options.onWalk;
  // Insertion order is recency: a hit moves its column to the end.
  const held = new Map<string, Held>();
  let total = 0;

  function drop(name: string, entry: Held): void {
    held.delete(name);
    total -= entry.size;
  }

  function hold(name: string, entry: Held): void {
    for (const [oldest, old] of held) {
      if (total + entry.size <= maxTotal && held.size < MAX_HELD) break;
      drop(oldest, old);
    }
    held.set(name, entry);
    total += entry.size;
  }

  return {
    columnOf(instanceId, table, index) {
      if (maxEntries === 0) return undefined;
      const epoch = db.get(keys.indexEpochKey(instanceId, epochTable(table)));
      // NUL cannot occur in a key part: the name is unambiguous.
      const name = `${instanceId}\u0000${table}\u0000${index}`;
      const known = held.get(name);
      if (known !== undefined) {
        drop(name, known);
        if (known.epoch === epoch) {
          hold(name, known);
          return known.column;
        }
      }
      const code = layout.codeOf(table, index);
      // An index the catalog does not have is never read (lmdb-indexes.ts answers nothing).
      const column = code === undefined ? undefined : rowCount(db, instanceId, table) > maxEntries ? undefined : buildColumn(db, { instanceId, table, index, code, scopes: layout.scopes }, maxEntries, onWalk);
      hold(name, { epoch, column, size: column?.ids.length ?? 0 });
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
  return { terms, ids, scopes };
}

/**
 * A walk over a column, exactly as the key walk answers it (lmdb-indexes.ts readIndex): the
 * whole index, in key order or reversed, from strictly after the cursor, `offset` matches
 * skipped, at most `limit` matches.
 */
export function readColumn(column: TermColumn, walk: IndexWalk, matches: (term: string) => boolean): IndexEntry[] {
  const { terms, ids, scopes } = column;
  const reverse = walk.reverse === true;
  let skip = Math.max(0, Math.floor(walk.offset ?? 0));
  let at = reverse ? terms.length - 1 : 0;
  const cursor = walk.after;
  // As the key walk: a cursor that cannot be a key is ignored.
  if (cursor !== undefined && keys.isKeyPart(cursor.term) && keys.isKeyPart(cursor.id)) {
    const from = lowerBound(column, cursor.term, cursor.id);
    const found = from < terms.length && terms[from] === cursor.term && ids[from] === cursor.id;
    at = reverse ? from - 1 : found ? from + 1 : from;
  }
  const entries: IndexEntry[] = [];
  const step = reverse ? -1 : 1;
  for (; at >= 0 && at < terms.length; at += step) {
    const term = terms[at]!;
    if (!matches(term)) continue;
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    entries.push({ term, id: ids[at]!, scope: scopes[at]! });
    if (entries.length >= walk.limit) break;
  }
  return entries;
}

export function countColumn(column: TermColumn, matches: (term: string) => boolean): number {
  let count = 0;
  for (const term of column.terms) if (matches(term)) count += 1;
  return count;
}

/** The first position whose (term, id) is not below the given one, in key order. */
function lowerBound(column: TermColumn, term: string, id: string): number {
  let low = 0;
  let high = column.terms.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = compareKeyText(column.terms[mid]!, term) || compareKeyText(column.ids[mid]!, id);
    if (order < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Strings in the order of their keys: ordered-binary writes them as UTF-8, whose byte order is
 * code point order, while JavaScript compares UTF-16 code units (a surrogate pair, U+10000 and
 * above, would sort before U+E000–U+FFFF).
 */
export function compareKeyText(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
