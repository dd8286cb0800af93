/**
 * Builds the PostgreSQL indexes (postgres-indexes.ts) of rows written before them or under an
 * older catalog version: by `tessera migrate` and at open, after the schema migrations.
 * Versioned and resumable: `index_state` names the catalog version and how far the build got
 * (instance, table, last row id); each batch is one transaction that holds the instance's
 * append lock and moves that position, so a crash loses at most one batch of work, two nodes
 * building at once take turns, and an append never interleaves with a batch. A batch diffs
 * against the summaries already present, so rows an append indexed meanwhile count once.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { IndexCatalog, Logger } from '../../actors/index.js';
import { storedTableOf, subRowListTable } from '../../actors/index.js';
import { epochStatement, indexChanges, indexStatements, readBeforeSummaries, toSummaryMap } from './postgres-indexes.js';
import { decodeValue, Q, valuesList } from './postgres-queries.js';

const BATCH = 1000;
const CHUNK = 1000;

interface State {
  readonly version: number;
  readonly complete: boolean;
  readonly instance_id: string | null;
  readonly table_name: string | null;
  /** null: the table's old entries are not cleared yet. */
  readonly after_id: string | null;
}

/** Brings the indexes up to `catalog.version`; returns the number of rows indexed. */
export async function buildPgIndexes(sql: Sql, catalog: IndexCatalog, logger?: Logger): Promise<number> {
  let rows = 0;
  let announced = false;
  for (;;) {
    const step = (await sql.begin((tx) => buildStep(tx, catalog))) as number | 'done';
    if (step === 'done') break;
    if (!announced) logger?.info({ version: catalog.version }, 'postgres index build started');
    announced = true;
    rows += step;
  }
  if (announced) logger?.info({ version: catalog.version, rows }, 'postgres indexes built');
  return rows;
}

/** Marks the indexes as not built (after a load wrote rows without them). */
export async function invalidatePgIndexes(sql: Sql): Promise<void> {
  await sql.unsafe('UPDATE index_state SET version = 0, complete = false, instance_id = NULL, table_name = NULL, after_id = NULL');
}

async function buildStep(tx: TransactionSql, catalog: IndexCatalog): Promise<number | 'done'> {
  await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['tessera.index-build']);
  const [state] = await tx.unsafe<State[]>('SELECT version, complete, instance_id, table_name, after_id FROM index_state');
  if (state === undefined) throw new Error('postgres store: index_state is missing (run the migrations)');
  if (state.version === catalog.version && state.complete) return 'done';
  const tableNames = catalog.tables.map((t) => t.table);
  let at = state.version === catalog.version && state.instance_id !== null && tableNames.includes(state.table_name ?? '') ? state : undefined;
  if (at === undefined) {
    const first = await nextInstance(tx, undefined);
    if (first === undefined || tableNames.length === 0) return finish(tx, catalog.version);
    at = { version: catalog.version, complete: false, instance_id: first, table_name: tableNames[0]!, after_id: null };
  }
  const instanceId = at.instance_id!;
  const tableName = at.table_name!;
  // The instance's append lock: no append of this instance runs while the batch does.
  await tx.unsafe(Q.lockCounter, [instanceId]);
  const table = catalog.tables.find((t) => t.table === tableName)!;
  // A sub-row table is built from its parent rows (`after_id` is then a parent id).
  const stored = storedTableOf(table);
  if (at.after_id === null) {
    for (const t of ['index_entries', 'row_summaries', 'row_counts']) {
      await tx.unsafe(`DELETE FROM ${t} WHERE instance_id = $1 AND table_name = ANY($2::text[])`, [instanceId, [tableName, subRowListTable(tableName)]]);
    }
    // The entries just removed may not all come back: a column read before is stale from here.
    const [text, params] = epochStatement(instanceId, [stored]);
    await tx.unsafe(text, params as never[]);
  }
  const after = at.after_id ?? '';
  const records = await tx.unsafe<{ id: string; value: Buffer }[]>(
    'SELECT id, value FROM records WHERE instance_id = $1 AND table_name = $2 AND id > $3 ORDER BY id LIMIT $4',
    [instanceId, stored, after, BATCH],
  );
  if (records.length > 0) {
    const existing = await readBeforeSummaries(tx, instanceId, records.map((r) => r.id));
    const changes = indexChanges(
      new Map([[stored, [table]]]),
      toSummaryMap(existing.filter((s) => s.table_name === tableName || s.table_name === subRowListTable(tableName))),
      records.map((r) => ({ table: stored, id: r.id, value: decodeValue(r.value) })),
    );
    for (const [text, params] of indexStatements(instanceId, changes, valuesList, CHUNK)) await tx.unsafe(text, params as never[], { prepare: false });
  }
  let next: [string, string, string] | undefined;
  if (records.length === BATCH) next = [instanceId, tableName, records[records.length - 1]!.id];
  else {
    const tableIndex = tableNames.indexOf(tableName);
    if (tableIndex + 1 < tableNames.length) next = [instanceId, tableNames[tableIndex + 1]!, ''];
    else {
      const instance = await nextInstance(tx, instanceId);
      if (instance !== undefined) next = [instance, tableNames[0]!, ''];
    }
  }
  if (next === undefined) {
    await finish(tx, catalog.version);
    return records.length;
  }
  const [i, t, a] = next;
  await tx.unsafe('UPDATE index_state SET version = $1, complete = false, instance_id = $2, table_name = $3, after_id = $4', [
    catalog.version,
    i,
    t,
    a === '' ? null : a,
  ]);
  return records.length;
}

async function finish(tx: TransactionSql, version: number): Promise<number> {
  await tx.unsafe('UPDATE index_state SET version = $1, complete = true, instance_id = NULL, table_name = NULL, after_id = NULL', [version]);
  return 0;
}

/** The first instance holding rows after `after` (primary-key range of records). */
async function nextInstance(tx: TransactionSql, after: string | undefined): Promise<string | undefined> {
  const rows =
    after === undefined
      ? await tx.unsafe<{ instance_id: string }[]>('SELECT instance_id FROM records ORDER BY instance_id LIMIT 1')
      : await tx.unsafe<{ instance_id: string }[]>('SELECT instance_id FROM records WHERE instance_id > $1 ORDER BY instance_id LIMIT 1', [after]);
  return rows[0]?.instance_id;
}
