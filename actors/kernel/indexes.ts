/**
 * Index declarations of the read-model tables (design §5: projections and indexes written in
 * the same transaction as the events). Each table declares ordered indexes: for every row an
 * index lists zero, one or several text terms, and the store keeps (term, id) pairs in term
 * order, plus a compact summary of each row (its scope and every index's terms) and a row
 * count per scope. Searches walk these instead of decoding rows. The declarations live beside
 * the aggregate kinds (actors/<area>/indexes.ts) and are gathered in actors/index-catalog.ts.
 */
import type { AggregateKind, AggregateRecord } from './aggregate.js';

/** Longest term kept (UTF-16 units): longer values are cut, so an index key stays small. */
export const MAX_TERM_LENGTH = 256;

/** One ordered index of a table. Terms compare as UTF-8 bytes (LMDB keys, COLLATE "C"). */
export interface IndexDefinition {
  /** Short stable name, part of every stored key: `name`, `name_ci`, `created`, … */
  readonly name: string;
  /** The row's terms in this index; none leaves the row out of the index. */
  terms(row: unknown): readonly string[];
  /**
   * True: the terms are kept in the row's summary only, with no index entries (no key, no
   * walk): for a column no search walks or sorts by, which conditions on other indexes may
   * still test and reads may take from the summary (a sub-row's parent id).
   */
  readonly summaryOnly?: boolean;
  /**
   * True: the store also keeps this index's entries in one order across every instance
   * (StoreAdapter.readAcrossInstances), so a periodic pass finds the rows whose term has come
   * due (a time, numberTerm) without visiting every instance. Each store keeps such an index of
   * the tables it names in one place (LMDB keys `['~across', …]`, PostgreSQL the partial index
   * `index_entries_across`): declaring one on another table needs a PostgreSQL migration that
   * widens that index, which test/store's plan check asks for.
   */
  readonly acrossInstances?: boolean;
}

/**
 * Where a table of sub-rows comes from: the entries inside the rows of a stored table (an
 * organization's domains, a project's roles, a user's grants). Each entry is indexed as a row
 * of its own, with the id `<parent id>/<key>` (subRowId), and written with its parent row.
 */
export interface SubRowSource {
  /** The stored table whose rows hold the entries. */
  readonly table: string;
  /** The entries of one parent row: sub-row id and the value its scope and terms come from. */
  rows(parentId: string, row: unknown): readonly { readonly id: string; readonly value: unknown }[];
}

/** The first index of every sub-row table: the parent row's id (its entries, e.g. one app's keys). */
export const PARENT_INDEX = 'parent';

/** A sub-row's id: unique in its table, and its parent's entries sort together. */
export function subRowId(parentId: string, key: string): string {
  return `${parentId}/${key}`;
}

/**
 * Where a sub-row table keeps, per parent row, the ids of its sub-rows (a summary whose single
 * term list is those ids): PostgreSQL diffs a parent's entries against it (LMDB, since catalog
 * version 5, against the parent row as stored before the write).
 */
export function subRowListTable(table: string): string {
  return `${table}#`;
}

/** An entry as a sub-row table's terms, its search's rows and rowCheck see it. */
export interface SubRow<P, I> {
  /** The sub-row id (subRowId). */
  readonly id: string;
  /** The entry's key inside its parent. */
  readonly key: string;
  readonly parent: AggregateRecord<P>;
  readonly item: I;
}

/** The indexes of one read-model table. */
export interface TableIndexes {
  readonly table: string;
  /** Present for a table of sub-rows (entries of another table's rows); absent: the table's own rows. */
  readonly source?: SubRowSource;
  /**
   * The partition a row's visibility depends on (its organization; '' when none). Every
   * index entry carries it, so a permission check per candidate reads no row.
   */
  scope(row: unknown): string;
  readonly indexes: readonly IndexDefinition[];
}

/** Every table's indexes; `version` changes whenever a definition does (stores then rebuild). */
export interface IndexCatalog {
  readonly version: number;
  readonly tables: readonly TableIndexes[];
}

/** No indexes: a store opened without a catalog keeps rows only. */
export const EMPTY_CATALOG: IndexCatalog = { version: 0, tables: [] };

/**
 * The index tables each stored table feeds (the stores' write path looks rows' tables up here):
 * the table itself when it declares indexes, and the sub-row tables of its entries.
 */
export function tablesOf(catalog: IndexCatalog): ReadonlyMap<string, readonly TableIndexes[]> {
  const out = new Map<string, TableIndexes[]>();
  for (const t of catalog.tables) {
    const stored = t.source?.table ?? t.table;
    out.set(stored, [...(out.get(stored) ?? []), t]);
  }
  return out;
}

/** Whether the catalog declares `table.index` kept across instances (StoreAdapter.readAcrossInstances reads only those). */
export function isKeptAcrossInstances(catalog: IndexCatalog, table: string, index: string): boolean {
  return catalog.tables.find((t) => t.table === table)?.indexes.find((i) => i.name === index)?.acrossInstances === true;
}

/** The stored table an index table's rows come from (its own name unless it holds sub-rows). */
export function storedTableOf(table: TableIndexes): string {
  return table.source?.table ?? table.table;
}

/** What the store keeps per row: its scope and its terms, index by index (same order as declared). */
export interface RowSummary {
  readonly scope: string;
  readonly terms: readonly (readonly string[])[];
}

type TermSource<S> = (record: AggregateRecord<S>) => string | number | readonly string[] | undefined;

/** Declares a kind's indexes with typed term functions (each returns a value, a list or nothing). */
export function defineIndexes<S>(
  kind: AggregateKind<S>,
  scope: (record: AggregateRecord<S>) => string,
  indexes: Readonly<Record<string, TermSource<S>>>,
  options: { readonly acrossInstances?: readonly string[] } = {},
): TableIndexes {
  const across = new Set(options.acrossInstances ?? []);
  return {
    table: kind.table,
    scope: (row) => scope(row as AggregateRecord<S>),
    indexes: Object.entries(indexes).map(([name, source]) => ({
      name,
      terms: (row) => toTerms(source(row as AggregateRecord<S>)),
      ...(across.has(name) ? { acrossInstances: true } : {}),
    })),
  };
}

/**
 * How a sub-row table keeps its `parent` index: `walked` as index entries (a search lists one
 * parent's entries by it), `summary` in the summaries only (the rows' reads take the parent id
 * from there; no search walks it, so no index entry is written per sub-row).
 */
export type ParentIndex = 'walked' | 'summary';

/**
 * Declares a table of sub-rows: `items` lists a parent row's entries by key (unique in the row),
 * `scope` and the term functions see each as a SubRow. The `parent` index comes first, kept as
 * `parent` says.
 */
export function defineSubIndexes<P, I>(
  kind: AggregateKind<P>,
  table: { readonly name: string; readonly parent: ParentIndex },
  items: (record: AggregateRecord<P>) => readonly { readonly key: string; readonly item: I }[],
  scope: (row: SubRow<P, I>) => string,
  indexes: Readonly<Record<string, (row: SubRow<P, I>) => string | number | readonly string[] | undefined>>,
): TableIndexes {
  return {
    table: table.name,
    source: {
      table: kind.table,
      rows: (parentId, row) =>
        items(row as AggregateRecord<P>).map(({ key, item }) => {
          const id = subRowId(parentId, key);
          return { id, value: { id, key, parent: row as AggregateRecord<P>, item } satisfies SubRow<P, I> };
        }),
    },
    scope: (row) => scope(row as SubRow<P, I>),
    indexes: Object.entries({ [PARENT_INDEX]: (r: SubRow<P, I>) => r.parent.id, ...indexes }).map(([name, source]) => ({
      name,
      terms: (row) => toTerms(source(row as SubRow<P, I>)),
      ...(name === PARENT_INDEX && table.parent === 'summary' ? { summaryOnly: true } : {}),
    })),
  };
}

/** A non-negative integer as a term that sorts numerically (16 digits: any safe integer). */
export function numberTerm(value: number): string {
  const n = Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
  return String(Math.min(n, Number.MAX_SAFE_INTEGER)).padStart(16, '0');
}

/**
 * An id as a term that sorts like the API's id order: decimal ids by value (shorter first),
 * others after them as text.
 */
export function idTerm(id: string): string {
  return /^\d{1,20}$/.test(id) ? `0${id.padStart(20, '0')}` : `1${id}`;
}

/** A term as stored: no NUL (a key separator in both stores), at most MAX_TERM_LENGTH units. */
export function cleanTerm(value: string): string {
  const text = value.includes('\u0000') ? value.replaceAll('\u0000', '\u0001') : value;
  return text.length > MAX_TERM_LENGTH ? text.slice(0, MAX_TERM_LENGTH) : text;
}

function toTerms(value: string | number | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  if (typeof value === 'number') return [numberTerm(value)];
  if (typeof value === 'string') return [cleanTerm(value)];
  return [...new Set(value.map(cleanTerm))];
}

/** The summary of a row under a table's declaration. */
export function summarize(table: TableIndexes, row: unknown): RowSummary {
  return { scope: table.scope(row), terms: table.indexes.map((index) => index.terms(row)) };
}
