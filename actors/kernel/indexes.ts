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
}

/** The indexes of one read-model table. */
export interface TableIndexes {
  readonly table: string;
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

/** The catalog's tables by name (the stores' write path looks rows' tables up here). */
export function tablesOf(catalog: IndexCatalog): ReadonlyMap<string, TableIndexes> {
  return new Map(catalog.tables.map((t) => [t.table, t]));
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
): TableIndexes {
  return {
    table: kind.table,
    scope: (row) => scope(row as AggregateRecord<S>),
    indexes: Object.entries(indexes).map(([name, source]) => ({
      name,
      terms: (row) => toTerms(source(row as AggregateRecord<S>)),
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
