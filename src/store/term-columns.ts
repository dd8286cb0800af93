/**
 * Term columns, the part both stores share (docs/architecture.md "Term columns"): CONTAINS /
 * ENDS_WITH filters test every term of an index, and reading the index for each filter costs far
 * more than the tests (LMDB: decoding 100,000 keys, 30–40 ms; PostgreSQL: a trigram scan and a
 * recheck of every candidate, ~5 ms). A column holds one index's entries — term, id and scope, in
 * key order — in plain arrays, read once and then scanned in memory while the table's index
 * epoch is the one it was read at. Each store keeps the epoch in its append transaction
 * (lmdb-term-columns.ts, postgres-term-columns.ts); this module holds the columns, bounded, and
 * answers walks and counts from them exactly as the stores' index walks answer them.
 */
import type { IndexCatalog, IndexEntry, IndexRange, IndexWalk } from '../../actors/index.js';
import { storedTableOf } from '../../actors/index.js';
import { isKeyPart } from './keys.js';

export interface TermColumnOptions {
  /** Largest column built, in entries (default 200,000); 0 turns columns off. */
  readonly maxEntries?: number;
  /** Entries of all columns held at once (default 600,000), least recently used dropped first. */
  readonly maxTotalEntries?: number;
  /** Hears of every read of a whole index for a term filter: to build a column, or to filter without one (tests). */
  readonly onWalk?: (walk: TermWalk) => void;
  /**
   * Milliseconds, for PostgreSQL's choice between building a column again and filtering in the
   * database (postgres-term-columns.ts; default: performance.now). Tests pass a clock of their own.
   */
  readonly now?: () => number;
}

export interface TermWalk {
  readonly instanceId: string;
  readonly table: string;
  readonly index: string;
  readonly purpose: 'column' | 'filter';
}

/** One index's entries in key order (term, then id); made by toColumn. */
export interface TermColumn {
  readonly terms: readonly string[];
  readonly ids: readonly string[];
  readonly scopes: readonly string[];
  /** The terms, each followed by a NUL. */
  readonly joined: string;
  /** Where each term starts in `joined`. */
  readonly starts: Int32Array;
}

/** What is held per (instance, table, index). */
export interface Held {
  /** The table's index epoch the column was read at. */
  readonly epoch: unknown;
  /** Undefined: no column (the index was larger than maxEntries, or the column was found stale). */
  readonly column: TermColumn | undefined;
  /** Milliseconds the last read of the whole index took (PostgreSQL). */
  readonly buildMs: number;
  /** Milliseconds spent filtering without a column since then (PostgreSQL). */
  spentMs: number;
}

const MAX_ENTRIES = 200_000;
const MAX_TOTAL_ENTRIES = 600_000;
/** Columns and markers held at once (a marker has no entries, but is a Map entry). */
const MAX_HELD = 1_000;

export interface ColumnCache {
  /** Largest column built (0: none). */
  readonly maxEntries: number;
  /** The entry held for an index, now the most recently used. */
  get(name: string): Held | undefined;
  /** Holds an entry, dropping the least recently used beyond the bounds. */
  hold(name: string, entry: Held): void;
}

/**
 * The table whose index epoch covers a table's indexes: its own, or for a sub-row table (written
 * only with its parent rows) its parent's. Names the catalog does not know map to themselves.
 */
export function epochTableOf(catalog: IndexCatalog): (table: string) => string {
  const tables = new Map(catalog.tables.map((t) => [t.table, storedTableOf(t)]));
  return (table) => tables.get(table) ?? table;
}

/** The name an index's entry is held under (NUL cannot occur in a key part: unambiguous). */
export function columnName(instanceId: string, table: string, index: string): string {
  return `${instanceId}\u0000${table}\u0000${index}`;
}

export function createColumnCache(options: TermColumnOptions): ColumnCache {
  const maxEntries = Math.max(0, options.maxEntries ?? MAX_ENTRIES);
  const maxTotal = Math.max(maxEntries, options.maxTotalEntries ?? MAX_TOTAL_ENTRIES);
  // Insertion order is recency: a hit moves its entry to the end.
  const held = new Map<string, Held>();
  let total = 0;
  const sizeOf = (entry: Held) => entry.column?.ids.length ?? 0;
  const drop = (name: string, entry: Held) => {
    held.delete(name);
    total -= sizeOf(entry);
  };
  return {
    maxEntries,
    get(name) {
      const known = held.get(name);
      if (known !== undefined) {
        held.delete(name);
        held.set(name, known);
      }
      return known;
    },
    hold(name, entry) {
      const old = held.get(name);
      if (old !== undefined) drop(name, old);
      const size = sizeOf(entry);
      for (const [oldest, entryOf] of held) {
        if (total + size <= maxTotal && held.size < MAX_HELD) break;
        drop(oldest, entryOf);
      }
      held.set(name, entry);
      total += size;
    },
  };
}

/** A column of these entries (in key order): the arrays, and the terms joined for the in-memory search. */
export function toColumn(terms: readonly string[], ids: readonly string[], scopes: readonly string[]): TermColumn {
  const starts = new Int32Array(terms.length);
  let at = 0;
  for (let i = 0; i < terms.length; i += 1) {
    starts[i] = at;
    at += terms[i]!.length + 1;
  }
  return { terms, ids, scopes, joined: terms.length === 0 ? '' : `${terms.join('\u0000')}\u0000`, starts };
}

/**
 * The positions of the entries matching a range's CONTAINS / ENDS_WITH, in walk order from
 * position `from` (inclusive; reversed: downwards). One search of the joined terms per match,
 * not a test per term: `String.prototype.includes` on each of 100,000 terms took ~3 ms, one
 * `indexOf` over the joined terms a small part of it. A term holds no NUL (a key part cannot), so a match
 * of a pattern without NUL lies inside one term; an ENDS_WITH is the pattern followed by the
 * NUL that ends each term. Same matches as `term.includes(contains) && term.endsWith(suffix)`.
 */
function* matching(column: TermColumn, range: Pick<IndexRange, 'contains' | 'suffix'>, from: number, reverse: boolean): Generator<number> {
  const { terms, joined, starts } = column;
  const count = terms.length;
  const step = reverse ? -1 : 1;
  const contains = range.contains === '' ? undefined : range.contains;
  const suffix = range.suffix === '' ? undefined : range.suffix;
  if (contains === undefined && suffix === undefined) {
    // Nothing to search for ('' is in every term).
    for (let i = from; i >= 0 && i < count; i += step) yield i;
    return;
  }
  // No term holds a NUL.
  if (contains?.includes('\u0000') === true || suffix?.includes('\u0000') === true) return;
  const bySuffix = contains === undefined;
  const needle = bySuffix ? `${suffix!}\u0000` : contains;
  // With both, the CONTAINS is searched and the ENDS_WITH tested on its matches.
  const alsoSuffix = bySuffix ? undefined : suffix;
  let i = from;
  while (i >= 0 && i < count) {
    let hit: number;
    if (reverse) {
      // The last match ending inside entry i (a suffix's NUL: at its end) or before it.
      const last = starts[i]! + terms[i]!.length - needle.length + (bySuffix ? 1 : 0);
      hit = last < 0 ? -1 : joined.lastIndexOf(needle, last);
    } else {
      hit = joined.indexOf(needle, starts[i]!);
    }
    if (hit < 0) return;
    i = entryAt(starts, hit);
    if (alsoSuffix === undefined || terms[i]!.endsWith(alsoSuffix)) yield i;
    i += step;
  }
}

/** The entry whose term holds the joined string's position `at` (the last start ≤ at). */
function entryAt(starts: Int32Array, at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * A walk over a column, exactly as the key walk answers it (lmdb-indexes.ts readIndex): the
 * whole index, in key order or reversed, from strictly after the cursor, `offset` matches
 * skipped, at most `limit` matches.
 */
export function readColumn(column: TermColumn, walk: IndexWalk): IndexEntry[] {
  const { terms, ids, scopes } = column;
  const reverse = walk.reverse === true;
  let skip = Math.max(0, Math.floor(walk.offset ?? 0));
  let at = reverse ? terms.length - 1 : 0;
  const cursor = walk.after;
  // As the key walk: a cursor that cannot be a key is ignored.
  if (cursor !== undefined && isKeyPart(cursor.term) && isKeyPart(cursor.id)) {
    const from = lowerBound(column, cursor.term, cursor.id);
    const found = from < terms.length && terms[from] === cursor.term && ids[from] === cursor.id;
    at = reverse ? from - 1 : found ? from + 1 : from;
  }
  const entries: IndexEntry[] = [];
  if (!(walk.limit > 0)) return entries;
  for (const i of matching(column, walk, at, reverse)) {
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    entries.push({ term: terms[i]!, id: ids[i]!, scope: scopes[i]! });
    if (entries.length >= walk.limit) break;
  }
  return entries;
}

export function countColumn(column: TermColumn, range: Pick<IndexRange, 'contains' | 'suffix'>): number {
  let count = 0;
  for (const _ of matching(column, range, 0, false)) count += 1;
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
