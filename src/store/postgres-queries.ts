/**
 * The SQL of the PostgreSQL adapter's hot paths, in one place so the tests can EXPLAIN the
 * exact text the adapter runs (every one is a primary-key or unique-index lookup/range).
 * Values are msgpackr-encoded bytea with lmdb-js's default options, so a value round-trips
 * exactly as it does through the LMDB adapter (objects, Maps, bigint, Buffer, Date).
 * Identifiers are COLLATE "C" columns (docs/operations/postgres.md), so ORDER BY id is
 * UTF-8 byte order, as in LMDB.
 */
import { Packr } from 'msgpackr';
import type { Sql } from 'postgres';
import { LISTED_TABLES, type ProjectionState } from '../../actors/index.js';

/** No shared structures: every value is self-describing, readable by any node. */
const packr = new Packr();

export function encodeValue(value: unknown): Buffer {
  return packr.pack(value);
}

export function decodeValue(raw: unknown): unknown {
  if (!(raw instanceof Uint8Array)) throw new Error('postgres store: expected a bytea value');
  return packr.unpack(raw);
}

/** PostgreSQL text cannot hold NUL: such a key is never stored, so a read answers "absent". */
export function hasNul(part: string): boolean {
  return part.includes('\u0000');
}

/** Same rule as the LMDB adapter, so both stores accept exactly the same instance ids. */
export function checkInstance(instanceId: string): string {
  if (instanceId === '' || instanceId.startsWith('~')) {
    throw new Error('instance id must be non-empty and must not start with "~"');
  }
  if (hasNul(instanceId)) throw new Error('store key part contains a NUL character');
  return instanceId;
}

/** Throws for a key part a write would have to store (the append then rolls back). */
export function checkPart(part: string): string {
  if (hasNul(part)) throw new Error('store key part contains a NUL character');
  return part;
}

/** A statement parameter as the store sends it. */
export type SqlParam = string | number | Buffer | readonly string[];

/**
 * `value` as an SQL literal: an integer; an escape string constant (E'…') in which a backslash
 * and a quote, the only characters with a meaning there, are each doubled (whatever
 * standard_conforming_strings says; the connection's encoding is UTF-8); bytes as hex input
 * to bytea (E'\\x…'); a list of strings as an ARRAY of such constants, cast to text[].
 * Refuses anything else: a string with NUL, a number that is not a safe integer.
 */
export function sqlLiteral(value: SqlParam | undefined): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error('postgres store: a number parameter must be a safe integer');
    return String(value);
  }
  if (typeof value === 'string') {
    if (hasNul(value)) throw new Error('postgres store: a string parameter must not contain NUL');
    return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  }
  if (Buffer.isBuffer(value)) return `E'\\\\x${value.toString('hex')}'::bytea`;
  if (Array.isArray(value)) return value.length === 0 ? "'{}'::text[]" : `ARRAY[${value.map((v) => sqlLiteral(v as string)).join(', ')}]::text[]`;
  throw new Error('postgres store: a parameter must be a string without NUL, a safe integer, bytes or a list of strings');
}

/**
 * A statement with its parameters written into the text as literals (sqlLiteral), each `$n`
 * replaced once in a single pass over a text this store built (so a `$` inside a value is never
 * read as a parameter). postgres.js sends an unnamed statement with parameters in two round
 * trips (Parse and Describe, then, once the server has answered with the parameters' types,
 * Bind and Execute), and holds the connection's later statements until the second; one without
 * parameters goes in one, pipelined with the statements around it. The planner sees the same
 * values as it would bound to an unnamed statement.
 */
export function inlineParams(text: string, params: readonly SqlParam[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => sqlLiteral(params[Number(n) - 1]));
}

/**
 * Options of a statement whose text is fixed: a named prepared statement. postgres.js sends an
 * unnamed statement with parameters as two round trips (Parse and Describe, then, after the
 * server's answer, Bind and Execute), every time; a prepared one is described once per
 * connection and then sent as one (bench/README.md "The visibility map and the position check
 * on PostgreSQL"). Walks with a LIKE pattern are planned for their pattern: not prepared, their
 * values written into the text so they too are one round trip (inlineParams).
 */
export const PREPARED = { prepare: true } as const;

const EVENT_COLUMNS = 'position, aggregate_type, aggregate_id, version, type, owner_type, owner_id, creator, created_at, payload';

/** Hot queries with their parameters ($n). The EXPLAIN test runs each of these texts. */
export const Q = {
  /** Takes the instance's append lock (the counter row, created at 0 when missing) and reads it. */
  lockCounter: `INSERT INTO instance_positions AS p (instance_id, position, created_at) VALUES ($1, 0, 0)
    ON CONFLICT (instance_id) DO UPDATE SET position = p.position
    RETURNING position, created_at`,
  /** Moves the counter to the last position an append batch used (under the lock above). */
  setCounter: 'UPDATE instance_positions SET position = $2, created_at = $3 WHERE instance_id = $1',
  /** The append's head check; also streamVersion. */
  head: 'SELECT version FROM stream_heads WHERE instance_id = $1 AND aggregate_type = $2 AND aggregate_id = $3',
  /**
   * The append's head check of every stream of a batch at once ($2 types, $3 ids, pairwise).
   * One primary-key probe per key, in a LATERAL subquery whose LIMIT keeps the planner from
   * turning it into a join: as a join, the prepared statement's generic plan on tables without
   * statistics (autovacuum off) was a hash join over every head of the instance, so each append
   * cost more the more streams the instance had (the same holds for `holders`).
   */
  heads: `SELECT k.t AS aggregate_type, k.id AS aggregate_id, h.version FROM unnest($2::text[], $3::text[]) AS k(t, id)
    CROSS JOIN LATERAL (SELECT version FROM stream_heads WHERE instance_id = $1 AND aggregate_type = k.t AND aggregate_id = k.id LIMIT 1) h`,
  /** The append's claim check of every value of a batch at once ($2 scopes, $3 values, pairwise). */
  holders: `SELECT k.scope, k.value, c.holder FROM unnest($2::text[], $3::text[]) AS k(scope, value)
    CROSS JOIN LATERAL (SELECT holder FROM unique_claims WHERE instance_id = $1 AND scope = k.scope AND value = k.value LIMIT 1) c`,
  counter: 'SELECT position, created_at FROM instance_positions WHERE instance_id = $1',
  readEvents: `SELECT ${EVENT_COLUMNS} FROM events WHERE instance_id = $1 AND position > $2 ORDER BY position LIMIT $3`,
  readStream: `SELECT ${EVENT_COLUMNS} FROM events
    WHERE instance_id = $1 AND aggregate_type = $2 AND aggregate_id = $3 ORDER BY version`,
  getRecord: 'SELECT value FROM records WHERE instance_id = $1 AND table_name = $2 AND id = $3',
  /**
   * Rows and stream heads of many aggregates at once ($2 tables, $3 types, $4 ids, by position),
   * in the order given: a primary-key probe each, in LATERAL subqueries (as `heads`).
   */
  aggregates: `SELECT r.value, h.version FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k(table_name, aggregate_type, id, n)
    LEFT JOIN LATERAL (SELECT value FROM records WHERE instance_id = $1 AND table_name = k.table_name AND id = k.id LIMIT 1) r ON true
    LEFT JOIN LATERAL (SELECT version FROM stream_heads WHERE instance_id = $1 AND aggregate_type = k.aggregate_type AND aggregate_id = k.id LIMIT 1) h ON true
    ORDER BY k.n`,
  scanRecordsFirst: 'SELECT id, value FROM records WHERE instance_id = $1 AND table_name = $2 ORDER BY id LIMIT $3',
  scanRecordsNext: 'SELECT id, value FROM records WHERE instance_id = $1 AND table_name = $2 AND id > $4 ORDER BY id LIMIT $3',
  deleteRecord: 'DELETE FROM records WHERE instance_id = $1 AND table_name = $2 AND id = $3',
  findUnique: 'SELECT holder FROM unique_claims WHERE instance_id = $1 AND scope = $2 AND value = $3',
  scanUniqueFirst: 'SELECT value, holder FROM unique_claims WHERE instance_id = $1 AND scope = $2 ORDER BY value LIMIT $3',
  scanUniqueNext: 'SELECT value, holder FROM unique_claims WHERE instance_id = $1 AND scope = $2 AND value > $4 ORDER BY value LIMIT $3',
  releaseUnique: 'DELETE FROM unique_claims WHERE instance_id = $1 AND scope = $2 AND value = $3',
  ttlPut: `INSERT INTO ttl_rows (instance_id, table_name, key, value, expires_at) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (instance_id, table_name, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  ttlGet: 'SELECT value FROM ttl_rows WHERE instance_id = $1 AND table_name = $2 AND key = $3 AND expires_at > $4',
  ttlTake: 'DELETE FROM ttl_rows WHERE instance_id = $1 AND table_name = $2 AND key = $3 RETURNING value, expires_at',
  ttlDelete: 'DELETE FROM ttl_rows WHERE instance_id = $1 AND table_name = $2 AND key = $3',
  /**
   * One sweep batch ($2 rows at most), deleted by row address (Tid Scan) while locked;
   * SKIP LOCKED lets two nodes sweep side by side.
   */
  ttlSweep: `DELETE FROM ttl_rows WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ttl_rows WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED))`,
  getMeta: 'SELECT value FROM node_meta WHERE key = $1',
  putMeta: `INSERT INTO node_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
} as const satisfies Record<string, string>;

/** `($1, $2, …), ($k+1, …)` for `rows` rows of `width` parameters each. */
/**
 * The instances with a row of each listed table, $1 at a time, the next page after $2 (the first
 * and next statements of instancesWithRows' keyset pages): the table a literal, so the planner
 * can prove the partial index `records_listed` (migration 6) covers the query; a parameter would
 * leave a generic plan reading the primary key whole.
 */
export const LISTED_INSTANCES: ReadonlyMap<string, readonly [string, string]> = new Map(
  LISTED_TABLES.map((table) => {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`listed table ${table}: not a plain name`);
    const rows = `SELECT DISTINCT instance_id FROM records WHERE table_name = '${table}'`;
    return [table, [`${rows} ORDER BY instance_id LIMIT $1`, `${rows} AND instance_id > $2 ORDER BY instance_id LIMIT $1`]] as const;
  }),
);

/** The tables whose indexes the partial index `index_entries_across` (migration 7) keeps across instances. */
export const ACROSS_TABLES: readonly string[] = ['web_keys'];

/**
 * The entries of an index kept across instances ($1 the index, $2 the highest term, $3 rows a
 * page, the next page after the row ($4, $5, $6)), per table of ACROSS_TABLES: the table a
 * literal, so the planner proves the partial index `index_entries_across` covers the query.
 */
export const ACROSS_INSTANCES: ReadonlyMap<string, readonly [string, string]> = new Map(
  ACROSS_TABLES.map((table) => {
    const rows = `SELECT term, instance_id AS "instanceId", id FROM index_entries WHERE table_name = '${table}' AND index_name = $1 AND term <= $2`;
    const order = 'ORDER BY term, instance_id, id LIMIT $3';
    return [table, [`${rows} ${order}`, `${rows} AND (term, instance_id, id) > ($4, $5, $6) ${order}`]] as const;
  }),
);

export function valuesList(rows: number, width: number): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r += 1) {
    const cells = Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`);
    tuples.push(`(${cells.join(', ')})`);
  }
  return tuples.join(', ');
}

/**
 * The instance's position from its `instance_positions` row (alone, or the position columns of a
 * statement that read it beside other rows): no row, or nulls, is an instance nothing was appended
 * to yet (position 0).
 */
export function positionState(row: { position: string | null; created_at: string | null } | undefined): ProjectionState {
  return row?.position === null || row?.position === undefined ? { position: 0, createdAt: 0 } : { position: Number(row.position), createdAt: Number(row.created_at) };
}

/** The instance's position, read by itself (one prepared statement; `instanceId` already checked). */
export async function readPosition(sql: Sql, instanceId: string): Promise<ProjectionState> {
  const [row] = await sql.unsafe<{ position: string; created_at: string }[]>(Q.counter, [instanceId], PREPARED);
  return positionState(row);
}
