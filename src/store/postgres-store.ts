/**
 * The PostgreSQL StoreAdapter (design §5, style §9; schema in docs/operations/postgres.md).
 * Same contract as the LMDB adapter: appends are conditional and atomic (postgres-append.ts),
 * reads are primary-key lookups or keyset-paginated index ranges, TTL rows are judged by the
 * injected clock and `take` is one DELETE … RETURNING. Migrations run on open.
 */
import { randomUUID } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import type { AcrossInstancesEntry, AggregateLocation, Clock, CommittedBatch, IndexCatalog, Logger, ProjectionState, StoreAdapter, StoredEvent, TtlStore } from '../../actors/index.js';
import { EMPTY_CATALOG, isKeptAcrossInstances, tablesOf } from '../../actors/index.js';
import { createAppendQueue } from './postgres-append.js';
import { changeChannel, createPostgresChangeFeed, currentSchema, type ChangeNotice } from './postgres-change-feed.js';
import { claimTtlRow } from './postgres-ttl-claim.js';
import { dumpPostgres, loadPostgres } from './postgres-dump.js';
import { buildPgIndexes, invalidatePgIndexes } from './postgres-index-build.js';
import { createPgIndexReads } from './postgres-indexes.js';
import { quoteIdent, runMigrations, SCHEMA_NAME, type MigrationResult } from './postgres-migrations.js';
import { ACROSS_INSTANCES, checkInstance, decodeValue, encodeValue, hasNul, LISTED_INSTANCES, PREPARED, Q, readPosition } from './postgres-queries.js';
import { createHealthCheck } from './postgres-health.js';
import { countStatements } from './postgres-statements.js';
import { createReadCache } from './postgres-read-cache.js';
import { createPgTermColumns, type PgTermColumns } from './postgres-term-columns.js';
import type { TermColumnOptions } from './term-columns.js';
import { withUnavailableErrors } from './postgres-unavailable.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (never logged). */
  readonly url: string;
  /** Schema holding the tables (created when missing); default: the connection's search_path. */
  readonly schema?: string;
  readonly logger?: Logger;
  /** Decides when TTL rows count as expired in `ttl.get`/`ttl.take` (default: wall clock). */
  readonly clock?: Clock;
  /** Connection pool size (default 10). */
  readonly maxConnections?: number;
  /**
   * The indexes to keep (actors/index-catalog.ts); built at open (and by `tessera migrate`)
   * when the schema's indexes are older. Every node writing a schema must pass the same.
   */
  readonly catalog?: IndexCatalog;
  /** Bounds of the in-memory term columns CONTAINS / ENDS_WITH filters read (term-columns.ts, postgres-term-columns.ts). */
  readonly termColumns?: TermColumnOptions;
}

type Track = <T>(write: Promise<T>) => Promise<T>;

const PAGE = 256;
/** LIMIT takes a bigint; callers pass Infinity-like limits to mean "all". */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;
const SWEEP_BATCH = 500;

/** Seconds a new connection may take to be ready (TCP, startup, authentication). */
const CONNECT_TIMEOUT_SECONDS = 5;

/**
 * Seconds before a pool connection retries after a failed attempt: 0.1, 0.2, 0.4, ... at most
 * 1. postgres.js's default grows to 20 s with failures counted across the whole pool, so after
 * a short outage under load, requests waited 10–20 s for a reconnect while the database was
 * already back (docs/operations/postgres.md, "Database outages").
 */
export function reconnectDelay(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1);
}

/**
 * Opens a connection pool on `url`, with search_path set to `schema` when given, JIT off,
 * generic plans and no sequential scans where an index can answer.
 * JIT: the append's summary read (`summariesWithSubRows`) is costed by row estimates that grow
 * with the table; past `jit_above_cost` PostgreSQL compiled it on every execution, 10-55 ms of
 * JIT for a statement that ran in 0.7 ms (300 ids, 130,000 summaries; bench/README.md). Every
 * statement the node sends is an index lookup or walk, never the long scan JIT pays off for.
 * Generic plans (`plan_cache_mode`): a prepared statement is planned once per connection, not at
 * every execution. By default PostgreSQL plans the first five executions for their values and
 * keeps the generic plan only when its estimate is no dearer; a search page's never was (`LIMIT
 * $4` reads as a tenth of the entries), so each page was planned again, 0.4 of its 0.45-0.65 ms
 * (docs/operations/postgres.md "Round trips").
 * No sequential scans (`enable_seqscan`, a cost, not a ban: a statement no index can answer
 * still scans): a generic plan estimates `instance_id = $1` from the column's distinct values,
 * so on a schema of one or two instances as a large part of each table, and summed a page's row
 * counts with a scan of all of row_counts (31 ms at 100,000 organizations). The store's
 * statements are written as index lookups and walks, the plans the EXPLAIN tests check; walks
 * with a LIKE pattern are sent with their values in the text (postgres-indexes.ts), planned for them.
 */
export function connectPostgres(options: Pick<PostgresStoreOptions, 'url' | 'schema' | 'logger' | 'maxConnections'>): Sql {
  const { schema, logger } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  return postgres(options.url, {
    max: options.maxConnections ?? 10,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    backoff: reconnectDelay,
    onnotice: (notice) => logger?.debug({ notice: notice.message }, 'postgres notice'),
    connection: { jit: 'off', plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off', ...(schema === undefined ? {} : { search_path: quoteIdent(schema) }) },
  });
}

/** Runs the migrations alone (`tessera migrate`), then builds the catalog's indexes when given. */
export async function migratePostgres(options: Pick<PostgresStoreOptions, 'url' | 'schema' | 'logger' | 'catalog'>): Promise<MigrationResult & { indexedRows: number }> {
  const sql = connectPostgres({ ...options, maxConnections: 1 });
  try {
    const result = await runMigrations(sql, options);
    const indexedRows = options.catalog === undefined ? 0 : await buildPgIndexes(sql, options.catalog, options.logger);
    return { ...result, indexedRows };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<StoreAdapter> {
  const { sql, counter } = countStatements(connectPostgres(options));
  const clock = options.clock ?? { now: () => Date.now() };
  let notice: ChangeNotice;
  try {
    const migrated = await runMigrations(sql, options);
    if (options.catalog !== undefined) await buildPgIndexes(sql, options.catalog, options.logger);
    options.logger?.debug({ schema: options.schema, version: migrated.version, applied: migrated.applied }, 'postgres store opened');
    // Appends announce themselves on the schema's channel, as this store instance (change feed).
    notice = { channel: changeChannel(await currentSchema(sql)), nodeId: randomUUID() };
  } catch (err) {
    await sql.end({ timeout: 5 });
    throw err;
  }
  let closed: Promise<void> | undefined;
  const writes = new Set<Promise<unknown>>();
  /** Mutations in flight: close() lets them finish (an append may still have statements to send). */
  const track: Track = (write) => {
    writes.add(write);
    const done = () => writes.delete(write);
    write.then(done, done);
    return write;
  };
  const catalog = options.catalog ?? EMPTY_CATALOG;
  // One set of columns for the store's reads and the read cache's: a column read by one serves both.
  const columns = createPgTermColumns(sql, catalog, options.termColumns);
  const reads = createReads(sql, catalog, columns);
  const cache = createReadCache(sql, columns);
  let committedListener: ((batch: CommittedBatch) => void) | undefined;
  const append = createAppendQueue(sql, tablesOf(catalog), notice, (committed) => {
    cache.advance(committed);
    committedListener?.(committed);
  });
  // Another node's batch that came with its rows and claims moves the read cache as this node's own do.
  const changes = createPostgresChangeFeed({ sql, notice, readEvents: reads.readEvents, onBatch: (batch) => cache.advance(batch), ...(options.logger === undefined ? {} : { logger: options.logger }) });
  const health = createHealthCheck(() => connectPostgres({ ...options, maxConnections: 1 }));
  return withUnavailableErrors({
    kind: 'postgres',
    catalog,
    append: (request) => track(append(request)),
    ...reads,
    changes,
    committedBatches: {
      listen(listener) {
        committedListener = listener;
      },
      apply: (batch) => cache.advance(batch),
    },
    putMeta: async (key, value) => {
      await track(sql.unsafe(Q.putMeta, [key, encodeValue(value)], PREPARED).execute());
    },
    ttl: createTtlStore(sql, clock, track),
    dump: (dumpOptions) => dumpPostgres(sql, dumpOptions?.now ?? clock.now()),
    load: (entries, loadOptions) =>
      track(
        (async () => {
          const counts = await loadPostgres(sql, entries, loadOptions);
          cache.clear();
          // The load wrote rows without their index entries: build them now.
          await invalidatePgIndexes(sql);
          if (options.catalog !== undefined) await buildPgIndexes(sql, options.catalog, options.logger);
          return counts;
        })(),
      ),
    checkHealth: health.check,
    statementCount: counter.count,
    requestReads: (instanceId) => cache.view(instanceId),
    close: () =>
      (closed ??= (async () => {
        await Promise.allSettled([...writes]);
        await changes.close();
        await Promise.all([sql.end({ timeout: 10 }), health.close()]);
      })()),
  });
}

interface EventRow {
  position: string;
  aggregate_type: string;
  aggregate_id: string;
  version: number;
  type: string;
  owner_type: string;
  owner_id: string;
  creator: string;
  created_at: string;
  payload: Buffer;
}

function decodeEvent(instanceId: string, row: EventRow): StoredEvent {
  return {
    instanceId,
    aggregateType: row.aggregate_type,
    aggregateId: row.aggregate_id,
    type: row.type,
    owner: { type: row.owner_type as StoredEvent['owner']['type'], id: row.owner_id },
    creator: row.creator,
    payload: decodeValue(row.payload),
    version: Number(row.version),
    position: Number(row.position),
    createdAt: Number(row.created_at),
  };
}

type Reads = Omit<StoreAdapter, 'kind' | 'catalog' | 'append' | 'putMeta' | 'ttl' | 'dump' | 'load' | 'close'>;

function createReads(sql: Sql, catalog: IndexCatalog, columns: PgTermColumns): Reads {
  /** First column's value of the first row, or undefined (also for keys PostgreSQL cannot hold). */
  const one = async (query: string, params: string[]): Promise<unknown> => {
    if (params.some(hasNul)) return undefined;
    const [row] = await sql.unsafe<Record<string, unknown>[]>(query, params, PREPARED);
    return row === undefined ? undefined : Object.values(row)[0];
  };
  return {
    ...createPgIndexReads(sql, columns),
    async streamVersion(instanceId, aggregateType, aggregateId) {
      return Number((await one(Q.head, [checkInstance(instanceId), aggregateType, aggregateId])) ?? 0);
    },
    async readEvents(instanceId, after, limit) {
      checkInstance(instanceId);
      if (!(limit > 0)) return [];
      const from = Math.max(0, Math.floor(after));
      const rows = await sql.unsafe<EventRow[]>(Q.readEvents, [instanceId, from, Math.min(Math.floor(limit), MAX_LIMIT)], PREPARED);
      return rows.map((row) => decodeEvent(instanceId, row));
    },
    async readStream(instanceId, aggregateType, aggregateId) {
      checkInstance(instanceId);
      if (hasNul(aggregateType) || hasNul(aggregateId)) return [];
      const rows = await sql.unsafe<EventRow[]>(Q.readStream, [instanceId, aggregateType, aggregateId], PREPARED);
      return rows.map((row) => decodeEvent(instanceId, row));
    },
    projectionState(instanceId): Promise<ProjectionState> {
      return readPosition(sql, checkInstance(instanceId));
    },
    async getRecord(instanceId, table, id) {
      const value = await one(Q.getRecord, [checkInstance(instanceId), table, id]);
      return value === undefined ? undefined : decodeValue(value);
    },
    async readAggregates(instanceId, aggregates) {
      checkInstance(instanceId);
      // Keys PostgreSQL cannot hold are never stored: absent, without asking.
      const storable = (a: AggregateLocation) => !hasNul(a.table) && !hasNul(a.aggregateType) && !hasNul(a.aggregateId);
      const asked = aggregates.filter(storable);
      const params = [instanceId, asked.map((a) => a.table), asked.map((a) => a.aggregateType), asked.map((a) => a.aggregateId)];
      const rows = asked.length === 0 ? [] : await sql.unsafe<{ value: Buffer | null; version: number | null }[]>(Q.aggregates, params, PREPARED);
      let next = 0;
      return aggregates.map((a) => {
        const row = storable(a) ? rows[next++] : undefined;
        return { record: row === undefined || row.value === null ? undefined : decodeValue(row.value), version: Number(row?.version ?? 0) };
      });
    },
    scanRecords: (instanceId, table) =>
      paged(sql, [Q.scanRecordsFirst, Q.scanRecordsNext], [checkInstance(instanceId), table], (row: { id: string; value: Buffer }) => ({
        cursor: row.id,
        item: decodeValue(row.value),
      })),
    async *instancesWithRows(table) {
      const queries = LISTED_INSTANCES.get(table);
      if (queries === undefined) throw new Error(`instancesWithRows: table ${table} is not in LISTED_TABLES`);
      yield* paged(sql, queries, [], (row: { instance_id: string }) => ({ cursor: row.instance_id, item: row.instance_id }));
    },
    async *readAcrossInstances(table, index, through) {
      const queries = ACROSS_INSTANCES.get(table);
      if (queries === undefined || !isKeptAcrossInstances(catalog, table, index)) throw new Error(`readAcrossInstances: ${table}.${index} is not an index kept across instances`);
      yield* paged(sql, queries, [index, through], (row: AcrossInstancesEntry) => ({
        cursor: [row.term, row.instanceId, row.id],
        item: { term: row.term, instanceId: row.instanceId, id: row.id },
      }));
    },
    async findUnique(instanceId, scope, value) {
      const holder = await one(Q.findUnique, [checkInstance(instanceId), scope, value]);
      return typeof holder === 'string' ? holder : undefined;
    },
    scanUnique: (instanceId, scope) =>
      paged(sql, [Q.scanUniqueFirst, Q.scanUniqueNext], [checkInstance(instanceId), scope], (row: { value: string; holder: string }) => ({
        cursor: row.value,
        item: { value: row.value, holder: row.holder },
      })),
    async getMeta(key) {
      const value = await one(Q.getMeta, [key]);
      return value === undefined ? undefined : decodeValue(value);
    },
  };
}

/**
 * An index range as an async iterable, read PAGE rows at a time by keyset pagination: no
 * cursor or transaction stays open while the consumer awaits between items.
 */
async function* paged<R extends object, T>(
  sql: Sql,
  [first, next]: readonly [string, string],
  params: readonly string[],
  map: (row: R) => { cursor: string | readonly string[]; item: T },
): AsyncGenerator<T> {
  if (params.some(hasNul)) return;
  let after: string | readonly string[] | undefined;
  for (;;) {
    const query = after === undefined ? first : next;
    // The next statement takes the last row's cursor after the page size: one value, or a row's key columns.
    const args = after === undefined ? [...params, PAGE] : [...params, PAGE, ...(typeof after === 'string' ? [after] : after)];
    const rows = await sql.unsafe<R[]>(query, args, PREPARED);
    const items = rows.map(map);
    yield* items.map((i) => i.item);
    const last = items[items.length - 1];
    if (last === undefined || items.length < PAGE) return;
    after = last.cursor;
  }
}

function createTtlStore(sql: Sql, clock: Clock, track: Track): TtlStore {
  const key3 = (instanceId: string, table: string, key: string): string[] | undefined =>
    hasNul(table) || hasNul(key) ? undefined : [checkInstance(instanceId), table, key];
  return {
    async put(instanceId, table, key, value, expiresAt) {
      await track(sql.unsafe(Q.ttlPut, [checkInstance(instanceId), table, key, encodeValue(value), Math.floor(expiresAt)], PREPARED).execute());
    },
    async get(instanceId, table, key) {
      const params = key3(instanceId, table, key);
      if (params === undefined) return undefined;
      const [row] = await sql.unsafe<{ value: Buffer }[]>(Q.ttlGet, [...params, Math.floor(clock.now())], PREPARED);
      return row === undefined ? undefined : decodeValue(row.value);
    },
    async take(instanceId, table, key) {
      const params = key3(instanceId, table, key);
      if (params === undefined) return undefined;
      const [row] = await track(sql.unsafe<{ value: Buffer; expires_at: string }[]>(Q.ttlTake, params, PREPARED).execute());
      return row !== undefined && Number(row.expires_at) > clock.now() ? decodeValue(row.value) : undefined;
    },
    async delete(instanceId, table, key) {
      const params = key3(instanceId, table, key);
      if (params !== undefined) await track(sql.unsafe(Q.ttlDelete, params, PREPARED).execute());
    },
    sweep: (now) => track(sweep(sql, now)),
    claim: (instanceId, table, key, holder, expiresAt) => track(claimTtlRow(sql, clock.now(), { instanceId, table, key, holder, expiresAt })),
  };
}

/** Deletes expired rows in batches, one statement (and commit) per batch. */
async function sweep(sql: Sql, now: number): Promise<number> {
  let count = 0;
  for (;;) {
    const result = await sql.unsafe(Q.ttlSweep, [Math.floor(now), SWEEP_BATCH], PREPARED);
    count += result.count;
    if (result.count < SWEEP_BATCH) return count;
  }
}
