/**
 * Dump and load of a whole PostgreSQL store (`tessera copy-store`). The dump reads every table
 * in primary-key order with server-side cursors inside ONE repeatable-read, read-only
 * transaction, so it is a consistent snapshot even while nodes write. The load runs in ONE
 * transaction that first locks the tables against writers and checks they are empty, then
 * inserts in multi-row batches: a failed load leaves the schema as empty as it found it.
 * Counter rows at position 0 (an append that only claimed values) mean nothing and are not
 * dumped, so an LMDB and a PostgreSQL dump of the same data are equal.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { DumpCounts, DumpEntry, DumpKind, LoadOptions, StoredEvent } from '../../actors/index.js';
import { batches, count, emptyCounts, StoreNotEmptyError } from './dump.js';
import { checkInstance, checkPart, decodeValue, encodeValue, valuesList } from './postgres-queries.js';

const CURSOR_ROWS = 500;
const TABLES = ['instance_positions', 'events', 'stream_heads', 'records', 'unique_claims', 'ttl_rows', 'node_meta'] as const;

type Row = Record<string, unknown>;

/** Each table's dump query and how one of its rows becomes an entry. */
const READERS: readonly { readonly query: string; readonly entry: (row: Row) => DumpEntry }[] = [
  {
    query: 'SELECT key, value FROM node_meta ORDER BY key',
    entry: (r) => ({ kind: 'meta', key: String(r.key), value: decodeValue(r.value) }),
  },
  {
    query: 'SELECT instance_id, position, created_at FROM instance_positions WHERE position > 0 ORDER BY instance_id',
    entry: (r) => ({ kind: 'position', instanceId: String(r.instance_id), position: Number(r.position), createdAt: Number(r.created_at) }),
  },
  {
    query: `SELECT instance_id, position, aggregate_type, aggregate_id, version, type, owner_type, owner_id, creator, created_at, payload
      FROM events ORDER BY instance_id, position`,
    entry: (r) => ({
      kind: 'event',
      event: {
        instanceId: String(r.instance_id),
        aggregateType: String(r.aggregate_type),
        aggregateId: String(r.aggregate_id),
        type: String(r.type),
        owner: { type: String(r.owner_type) as StoredEvent['owner']['type'], id: String(r.owner_id) },
        creator: String(r.creator),
        payload: decodeValue(r.payload),
        version: Number(r.version),
        position: Number(r.position),
        createdAt: Number(r.created_at),
      },
    }),
  },
  {
    query: 'SELECT instance_id, aggregate_type, aggregate_id, version FROM stream_heads ORDER BY instance_id, aggregate_type, aggregate_id',
    entry: (r) => ({ kind: 'head', instanceId: String(r.instance_id), aggregateType: String(r.aggregate_type), aggregateId: String(r.aggregate_id), version: Number(r.version) }),
  },
  {
    query: 'SELECT instance_id, table_name, id, value FROM records ORDER BY instance_id, table_name, id',
    entry: (r) => ({ kind: 'record', instanceId: String(r.instance_id), table: String(r.table_name), id: String(r.id), value: decodeValue(r.value) }),
  },
  {
    query: 'SELECT instance_id, scope, value, holder FROM unique_claims ORDER BY instance_id, scope, value',
    entry: (r) => ({ kind: 'unique', instanceId: String(r.instance_id), scope: String(r.scope), value: String(r.value), holder: String(r.holder) }),
  },
  {
    query: 'SELECT instance_id, table_name, key, value, expires_at FROM ttl_rows WHERE expires_at > $1 ORDER BY instance_id, table_name, key',
    entry: (r) => ({
      kind: 'ttl',
      instanceId: String(r.instance_id),
      table: String(r.table_name),
      key: String(r.key),
      value: decodeValue(r.value),
      expiresAt: Number(r.expires_at),
    }),
  },
];

export async function* dumpPostgres(sql: Sql, now: number): AsyncGenerator<DumpEntry> {
  const conn = await sql.reserve();
  try {
    await conn.unsafe('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const { query, entry } of READERS) {
      const params = query.includes('$1') ? [Math.floor(now)] : [];
      for await (const rows of conn.unsafe<Row[]>(query, params).cursor(CURSOR_ROWS)) {
        yield* rows.map(entry);
      }
    }
    await conn.unsafe('COMMIT');
  } finally {
    // Also reached when the consumer stops early: end the snapshot before the connection goes back.
    await conn.unsafe('ROLLBACK').catch(() => undefined);
    conn.release();
  }
}

type Param = string | number | Buffer;

/** Insert statement head and row parameters per entry kind. */
const WRITERS: { readonly [K in DumpKind]: { readonly head: string; readonly row: (e: Extract<DumpEntry, { kind: K }>) => Param[] } } = {
  event: {
    head: 'INSERT INTO events (instance_id, position, aggregate_type, aggregate_id, version, type, owner_type, owner_id, creator, created_at, payload)',
    row: ({ event: e }) => [checkInstance(e.instanceId), e.position, checkPart(e.aggregateType), checkPart(e.aggregateId), e.version, e.type, e.owner.type, e.owner.id, e.creator, e.createdAt, encodeValue(e.payload)],
  },
  head: {
    head: 'INSERT INTO stream_heads (instance_id, aggregate_type, aggregate_id, version)',
    row: (e) => [checkInstance(e.instanceId), checkPart(e.aggregateType), checkPart(e.aggregateId), e.version],
  },
  position: {
    head: 'INSERT INTO instance_positions (instance_id, position, created_at)',
    row: (e) => [checkInstance(e.instanceId), e.position, e.createdAt],
  },
  record: {
    head: 'INSERT INTO records (instance_id, table_name, id, value)',
    row: (e) => [checkInstance(e.instanceId), checkPart(e.table), checkPart(e.id), encodeValue(e.value)],
  },
  unique: {
    head: 'INSERT INTO unique_claims (instance_id, scope, value, holder)',
    row: (e) => [checkInstance(e.instanceId), checkPart(e.scope), checkPart(e.value), e.holder],
  },
  ttl: {
    head: 'INSERT INTO ttl_rows (instance_id, table_name, key, value, expires_at)',
    row: (e) => [checkInstance(e.instanceId), checkPart(e.table), checkPart(e.key), encodeValue(e.value), Math.floor(e.expiresAt)],
  },
  meta: {
    head: 'INSERT INTO node_meta (key, value)',
    row: (e) => [checkPart(e.key), encodeValue(e.value)],
  },
};

export async function loadPostgres(sql: Sql, entries: AsyncIterable<DumpEntry>, options: LoadOptions = {}): Promise<DumpCounts> {
  return sql.begin(async (tx) => {
    // Nodes append under the instance_positions row lock; this keeps every writer out until COMMIT.
    await tx.unsafe(`LOCK TABLE ${TABLES.join(', ')} IN SHARE ROW EXCLUSIVE MODE`);
    const [found] = await tx.unsafe<{ used: boolean }[]>(`SELECT ${TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t})`).join(' OR ')} AS used`);
    if (found?.used === true) throw new StoreNotEmptyError('(PostgreSQL schema)');
    const counts = emptyCounts();
    for await (const batch of batches(entries)) {
      await insertBatch(tx, batch);
      count(counts, batch);
      options.onProgress?.(counts);
    }
    return counts;
  }) as Promise<DumpCounts>;
}

/** One multi-row INSERT per kind present in the batch (≤ 1000 rows × 11 parameters < 65535). */
async function insertBatch(tx: TransactionSql, batch: readonly DumpEntry[]): Promise<void> {
  const rows = new Map<DumpKind, Param[][]>();
  for (const entry of batch) {
    const writer = WRITERS[entry.kind] as { row: (e: DumpEntry) => Param[] };
    const list = rows.get(entry.kind) ?? [];
    list.push(writer.row(entry));
    rows.set(entry.kind, list);
  }
  for (const [kind, list] of rows) {
    const width = list[0]!.length;
    await tx.unsafe(`${WRITERS[kind].head} VALUES ${valuesList(list.length, width)}`, list.flat(), { prepare: false });
  }
}
