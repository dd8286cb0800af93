/**
 * Term columns of the PostgreSQL store (term-columns.ts holds and reads them;
 * docs/architecture.md "Term columns"). A CONTAINS / ENDS_WITH filter over a whole index was a
 * trigram scan with a recheck of every candidate, ~5 ms at 100,000 organizations: longer than
 * the LMDB node's whole request. With a column, the node tests the terms in memory and sends
 * only the page's lookups, with the table's index epoch read in the same statement.
 *
 * The epoch is one row per (instance, stored table) in `index_epochs` (migration 8; a sub-row
 * table shares its parent table's), given a fresh random value in the append's transaction
 * whenever the append changes an entry of one of the table's indexes (postgres-indexes.ts
 * `indexStatements`), and by the index build. A column is read together with the epoch, in one
 * statement, so in one snapshot: it is exact for every node on the schema, whoever wrote.
 *
 * Reading a column costs far more here than on LMDB (the entries cross the wire: 0.2–0.3 s for
 * 100,000), so a table written between filters would pay that on every filter. After a column
 * goes stale, filters run in the database until they have together taken as long as the last
 * read of the column did, and only then is it read again (a rent-or-buy rule: at most twice the
 * cost of the better choice made in hindsight). A table with more rows than a column holds (its
 * maintained row count, read first) or an index found to hold more entries is tried again on the
 * same rule, once filtering has cost more than the check that found it too large.
 */
import type { Sql } from 'postgres';
import type { IndexCatalog } from '../../actors/index.js';
import { PREPARED } from './postgres-queries.js';
import { columnName, createColumnCache, epochTableOf, toColumn, type Held, type TermColumn, type TermColumnOptions } from './term-columns.js';

/** A column and the epoch it was read at (null: the table has no epoch row yet, which is an epoch too). */
export interface ReadColumn {
  readonly column: TermColumn;
  readonly epoch: string | null;
  /**
   * Read for another request that was already reading it: the read may have started before this
   * request did, so before a write this request's client saw acknowledged; check the epoch.
   */
  readonly joined?: true;
}

export interface PgTermColumns {
  /** The column held for an index, whatever the table's epoch is now (the caller checks it). */
  held(instanceId: string, table: string, index: string): ReadColumn | undefined;
  /** The held column's epoch is not the table's any more. */
  stale(instanceId: string, table: string, index: string): void;
  /** Reads the index's column when the rent-or-buy rule says so; undefined: filter in the database. */
  build(instanceId: string, table: string, index: string): Promise<ReadColumn | undefined>;
  /** Runs a filter in the database, its time counted towards the next read of the column. */
  filtered<T>(instanceId: string, table: string, index: string, run: () => Promise<T>): Promise<T>;
  /** The table whose epoch covers `table`'s indexes (its parent for a sub-row table). */
  epochTable(table: string): string;
}

/** Marks an index found larger than a column may be (Held.epoch). */
const TOO_LARGE = Symbol('too large');

export const EPOCH_QUERY = 'SELECT epoch FROM index_epochs WHERE instance_id = $1 AND table_name = $2';

/**
 * The whole index in key order with the table's epoch ($4), at most $5 entries (exported for the
 * EXPLAIN test). The epoch is an uncorrelated subquery, run once; the entries come from the
 * primary key in its order (term is COLLATE "C": code point order, as term-columns.ts compares).
 */
export const COLUMN_QUERY = `SELECT (SELECT epoch FROM index_epochs WHERE instance_id = $1 AND table_name = $4) AS epoch, term, id, scope
  FROM index_entries WHERE instance_id = $1 AND table_name = $2 AND index_name = $3 ORDER BY term, id LIMIT $5`;

/** The table's maintained row count (row_counts, summed over its scopes): checked before a column is read. */
export const ROW_COUNT_QUERY = 'SELECT coalesce(sum(count), 0)::bigint AS n FROM row_counts WHERE instance_id = $1 AND table_name = $2';

export function createPgTermColumns(sql: Sql, catalog: IndexCatalog, options: TermColumnOptions = {}): PgTermColumns {
  const cache = createColumnCache(options);
  const { maxEntries } = cache;
  const { onWalk } = options;
  const now = options.now ?? (() => performance.now());
  const epochTable = epochTableOf(catalog);
  /** Reads in flight, by name: requests arriving while a column is read wait for that read. */
  const reading = new Map<string, Promise<ReadColumn | undefined>>();

  async function read(instanceId: string, table: string, index: string, name: string): Promise<ReadColumn | undefined> {
    let started = now();
    // A table of more rows than a column holds is not read (a million users' entries would take
    // seconds to fetch only to be dropped); its filters run in SQL, the count checked again later.
    const [counted] = await sql.unsafe<{ n: string }[]>(ROW_COUNT_QUERY, [instanceId, table], PREPARED);
    if (Number(counted?.n ?? 0) > maxEntries) {
      cache.hold(name, { epoch: TOO_LARGE, column: undefined, buildMs: now() - started, spentMs: 0 });
      return undefined;
    }
    onWalk?.({ instanceId, table, index, purpose: 'column' });
    started = now();
    const rows = await sql.unsafe<{ epoch: string | null; term: string; id: string; scope: string }[]>(COLUMN_QUERY, [instanceId, table, index, epochTable(table), maxEntries + 1], PREPARED);
    const buildMs = now() - started;
    if (rows.length > maxEntries) {
      cache.hold(name, { epoch: TOO_LARGE, column: undefined, buildMs, spentMs: 0 });
      return undefined;
    }
    if (rows.length === 0) {
      // No row, no epoch read: the answer (nothing) stands, the column is not kept.
      cache.hold(name, { epoch: undefined, column: undefined, buildMs, spentMs: 0 });
      return { column: toColumn([], [], []), epoch: null };
    }
    const column = toColumn(
      rows.map((r) => r.term),
      rows.map((r) => r.id),
      rows.map((r) => r.scope),
    );
    const epoch = rows[0]!.epoch;
    cache.hold(name, { epoch, column, buildMs, spentMs: 0 });
    return { column, epoch };
  }

  return {
    epochTable,
    held(instanceId, table, index) {
      if (maxEntries === 0) return undefined;
      const known = cache.get(columnName(instanceId, table, index));
      return known?.column === undefined ? undefined : { column: known.column, epoch: known.epoch as string | null };
    },
    stale(instanceId, table, index) {
      const name = columnName(instanceId, table, index);
      const known = cache.get(name);
      if (known !== undefined) cache.hold(name, { epoch: undefined, column: undefined, buildMs: known.buildMs, spentMs: 0 });
    },
    async build(instanceId, table, index) {
      if (maxEntries === 0) return undefined;
      const name = columnName(instanceId, table, index);
      const running = reading.get(name);
      if (running !== undefined) {
        const shared = await running;
        return shared === undefined ? undefined : { ...shared, joined: true };
      }
      const known = cache.get(name);
      if (known !== undefined && !due(known)) return undefined;
      const started = read(instanceId, table, index, name);
      reading.set(name, started);
      try {
        return await started;
      } finally {
        reading.delete(name);
      }
    },
    async filtered(instanceId, table, index, run) {
      onWalk?.({ instanceId, table, index, purpose: 'filter' });
      const started = now();
      try {
        return await run();
      } finally {
        const known = maxEntries === 0 ? undefined : cache.get(columnName(instanceId, table, index));
        if (known !== undefined && known.column === undefined) known.spentMs += now() - started;
      }
    },
  };
}

/**
 * Whether the index's column is read again: once the filters since it went stale took as long as
 * its last read; an index too large for one once they took longer than the read that found it so.
 */
function due(known: Held): boolean {
  if (known.column !== undefined) return true;
  return known.epoch === TOO_LARGE ? known.spentMs > known.buildMs : known.spentMs >= known.buildMs;
}
