/**
 * The LMDB StoreAdapter (design §5, style §9). An append reads the stream heads, claims and
 * position counter and writes events, heads, claims and projected rows inside ONE LMDB write
 * transaction, which holds LMDB's process-shared writer lock: two processes on one directory
 * cannot both pass the same expectation. Mutations (sweeps aside) resolve once flushed to disk.
 */
import { compareKeys, getLastVersion, open, type Key } from 'lmdb';
import type {
  IndexCatalog,
  AppendRequest,
  AppendResult,
  Clock,
  Logger,
  ProjectionState,
  RecordWrite,
  StoreAdapter,
  StoredEvent,
  TableIndexes,
  TtlStore,
} from '../../actors/index.js';
import { EMPTY_CATALOG, tablesOf } from '../../actors/index.js';
import { checkExpectations, findClaimClash, placeEvents } from './append-rules.js';
import * as keys from './keys.js';
import { dumpLmdb, loadLmdb } from './lmdb-dump.js';
import { buildIndexes } from './lmdb-index-build.js';
import { buildListing, instancesWithRows, markListedInTxn, writeListing } from './lmdb-listing.js';
import { createIndexCodes, type IndexCodes } from './lmdb-index-codes.js';
import { createIndexReads, IndexBatch, needsPrevious, readAcrossInstances, writeIndexes } from './lmdb-indexes.js';
import type { TermColumnOptions } from './term-columns.js';
import { decodeEvent, encodeEvent } from './lmdb-events.js';
import { createTtlPutBatcher, type TtlPutBatcher } from './lmdb-ttl-batch.js';

export interface LmdbStoreOptions {
  /** Directory of the LMDB environment (created when missing). */
  readonly path: string;
  readonly logger?: Logger;
  /** Skips fsync: for throwaway test stores only; a crash can lose acknowledged writes. */
  readonly noSync?: boolean;
  /** Decides when TTL rows count as expired in `ttl.get`/`ttl.take` (default: wall clock). */
  readonly clock?: Clock;
  /**
   * The indexes to keep (actors/index-catalog.ts). Rows written before them, or under an older
   * catalog version, are indexed at open. Every process writing a directory must pass the same.
   */
  readonly catalog?: IndexCatalog;
  /**
   * Offer `ttl.claim` (one write transaction: LMDB's writer lock decides between racing
   * threads): for nodes whose worker threads share the store (TESSERA_WORKERS > 1). Off, callers
   * fall back to get + put, enough for one thread.
   */
  readonly claims?: boolean;
  /** Bounds of the in-memory term columns CONTAINS / ENDS_WITH filters read (term-columns.ts, lmdb-term-columns.ts). */
  readonly termColumns?: TermColumnOptions;
}

type Db = ReturnType<typeof open<unknown, Key>>;

const PAGE = 256;
const SWEEP_BATCH = 500;
const NONE: Promise<undefined> = Promise.resolve(undefined);
/** TTL keys up to this many characters (table + key, each at most 4 bytes in UTF-8) always fit LMDB's 1,978-byte keys. */
const BATCHED_KEY_CHARS = 400;

/**
 * Values are msgpack with shared record structures (keys.ts STRUCTURES_META): a record's property
 * names are written once per shape for the whole file instead of in every value (a user's record
 * 542 -> ~200 bytes). Values written before (plain msgpack maps) read as they are. Up to
 * `maxSharedStructures` shapes are shared; later new shapes are written inline, per value.
 * lmdb-js saves a new shape in its own transaction before the value that uses it and reloads the
 * shapes when another process added one (two workers on one directory).
 */
export const SHARED_STRUCTURES = { sharedStructuresKey: keys.metaKey(keys.STRUCTURES_META), maxSharedStructures: 1000 } as const;

export function openLmdbStore(options: LmdbStoreOptions): StoreAdapter {
  const noSync = options.noSync === true;
  const db: Db = open<unknown, Key>(options.path, { useVersions: true, noSync, ...SHARED_STRUCTURES });
  const clock = options.clock ?? { now: () => Date.now() };
  const catalog = options.catalog ?? EMPTY_CATALOG;
  const indexing: Indexing = { tables: tablesOf(catalog), codes: createIndexCodes(catalog) };
  if (options.catalog !== undefined) buildIndexes(db, catalog, options.logger);
  // A directory without instances at open is marked listed by its first append (every row since is listed).
  let markListing = !buildListing(db, options.logger).listed;
  let closed: Promise<void> | undefined;
  options.logger?.debug({ path: options.path, noSync }, 'lmdb store opened');

  /** Resolves after the commit of `write` is on disk. */
  async function durable<T>(write: Promise<T>): Promise<T> {
    const result = await write;
    if (!noSync) await db.flushed;
    return result;
  }
  const ttlPuts = createTtlPutBatcher(db, durable);

  return {
    kind: 'lmdb',
    catalog,
    // A child transaction aborts as a unit when project() or a write throws, so a failed
    // append leaves nothing behind even though lmdb-js batches several callbacks per commit.
    append: (request) => {
      const mark = markListing;
      markListing = false;
      return durable(
        db.childTransaction(() => {
          if (mark) markListedInTxn(db);
          return appendInTxn(db, indexing, request);
        }),
      );
    },
    ...createReads(db, options.termColumns, catalog),
    putMeta: async (key, value) => {
      await durable(db.put(keys.metaKey(key), value));
    },
    ttl: createTtlStore(db, clock, durable, ttlPuts, options.claims === true),
    dump: (dumpOptions) => dumpLmdb(db, dumpOptions?.now ?? clock.now()),
    load: (entries, loadOptions) => loadLmdb(db, entries, durable, loadOptions, options.catalog),
    close: () => (closed ??= ttlPuts.idle().then(() => closeDb(db, noSync))),
    renewReads: () => db.resetReadTxn(),
  };
}

type Reads = Omit<StoreAdapter, 'kind' | 'catalog' | 'append' | 'putMeta' | 'ttl' | 'dump' | 'load' | 'close'>;

/** Point reads run synchronously on lmdb-js's shared read transaction: no per-call txn. */
function createReads(db: Db, termColumns: TermColumnOptions | undefined, catalog: IndexCatalog): Reads {
  return {
    ...createIndexReads(db, termColumns, catalog),
    streamVersion: async (instanceId, aggregateType, aggregateId) => headOf(db, instanceId, aggregateType, aggregateId),
    readEvents: async (instanceId, after, limit) => readEvents(db, instanceId, after, limit),
    readStream: async (instanceId, aggregateType, aggregateId) => readStream(db, instanceId, aggregateType, aggregateId),
    projectionState: async (instanceId) => lastPosition(db, instanceId),
    getRecord(instanceId, table, id) {
      try {
        return keys.isKeyPart(id) ? Promise.resolve(db.get(keys.recordKey(instanceId, table, id))) : NONE;
      } catch (err) {
        return Promise.reject(err);
      }
    },
    readAggregates: async (instanceId, aggregates) =>
      aggregates.map(({ table, aggregateType, aggregateId }) => ({
        record: keys.isKeyPart(aggregateId) ? db.get(keys.recordKey(instanceId, table, aggregateId)) : undefined,
        version: headOf(db, instanceId, aggregateType, aggregateId),
      })),
    scanRecords: (instanceId, table) => pagedValues(db, () => keys.recordRange(instanceId, table), (key, value) => value),
    instancesWithRows: (table) => instancesWithRows(db, table),
    readAcrossInstances: (table, index, through) => readAcrossInstances(db, catalog, table, index, through),
    findUnique(instanceId, scope, value) {
      try {
        return keys.isKeyPart(value) ? Promise.resolve(db.get(keys.uniqueKey(instanceId, scope, value)) as string | undefined) : NONE;
      } catch (err) {
        return Promise.reject(err);
      }
    },
    scanUnique: (instanceId, scope) =>
      pagedValues(db, () => keys.uniqueRange(instanceId, scope), (key, holder) => ({
        value: keys.lastPart(key) as string,
        holder: holder as string,
      })),
    getMeta: async (key) => db.get(keys.metaKey(key)),
  };
}

async function closeDb(db: Db, noSync: boolean): Promise<void> {
  await db.committed;
  if (!noSync) await db.flushed;
  await db.close();
}

function headOf(db: Db, instanceId: string, aggregateType: string, aggregateId: string): number {
  if (!keys.isKeyPart(aggregateId)) return 0;
  const head = db.get(keys.headKey(instanceId, aggregateType, aggregateId));
  return typeof head === 'number' ? head : 0;
}

/** The index tables each stored table feeds, and the catalog's key codes. */
interface Indexing {
  readonly tables: ReadonlyMap<string, readonly TableIndexes[]>;
  readonly codes: IndexCodes;
}

/** Runs inside the write transaction: synchronous, reads see the latest commit of any process. */
function appendInTxn(db: Db, indexing: Indexing, request: AppendRequest): AppendResult {
  const { instanceId } = request;
  const versions = checkExpectations(request, (type, id) => headOf(db, instanceId, type, id));
  if (!(versions instanceof Map)) return versions;
  const clash = findClaimClash(request, (scope, value) => db.get(keys.uniqueKey(instanceId, scope, value)) as string | undefined);
  if (clash !== undefined) return clash;
  const stored = placeEvents(request, versions, lastPosition(db, instanceId).position + 1);
  // Computed before any write: a throwing projection aborts with nothing written.
  const rows = request.project(stored);
  writeAppend(db, indexing, request, stored, rows);
  return { ok: true, events: stored };
}

function writeAppend(db: Db, { tables, codes }: Indexing, request: AppendRequest, stored: readonly StoredEvent[], rows: readonly RecordWrite[]): void {
  const { instanceId } = request;
  for (const e of stored) {
    db.put(keys.eventKey(instanceId, e.position), encodeEvent(e));
    db.put(keys.streamIndexKey(instanceId, e.aggregateType, e.aggregateId, e.version), e.position);
    db.put(keys.headKey(instanceId, e.aggregateType, e.aggregateId), e.version, e.version);
  }
  const last = stored[stored.length - 1];
  if (last !== undefined) db.put(keys.counterKey(instanceId), [last.position, last.createdAt]);
  for (const r of request.releases ?? []) db.remove(keys.uniqueKey(instanceId, r.scope, r.value));
  for (const c of request.claims ?? []) db.put(keys.uniqueKey(instanceId, c.scope, c.value), c.holder);
  const batch = new IndexBatch();
  for (const row of rows) {
    const key = keys.recordKey(instanceId, row.table, row.id);
    const indexed = tables.get(row.table);
    // A row feeding sub-row tables: its entries before this write are read from the row itself.
    const previous = indexed !== undefined && needsPrevious(indexed) ? db.get(key) : undefined;
    const present = row.value !== null && row.value !== undefined;
    if (present) db.put(key, row.value);
    else db.remove(key);
    writeListing(db, instanceId, row.table, row.id, present);
    if (indexed !== undefined) writeIndexes(db, indexed, instanceId, row.id, row.value, { codes, previous, batch });
  }
  batch.write(db);
}

function lastPosition(db: Db, instanceId: string): ProjectionState {
  const counter = db.get(keys.counterKey(instanceId));
  if (!Array.isArray(counter)) return { position: 0, createdAt: 0 };
  return { position: Number(counter[0]), createdAt: Number(counter[1]) };
}

function readEvents(db: Db, instanceId: string, after: number, limit: number): StoredEvent[] {
  if (!(limit > 0)) return [];
  const range = keys.eventRange(instanceId, Math.max(0, Math.floor(after)) + 1);
  const events: StoredEvent[] = [];
  for (const { key, value } of db.getRange({ ...range, limit })) {
    events.push(decodeEvent(instanceId, keys.lastPart(key) as number, value));
  }
  return events;
}

function readStream(db: Db, instanceId: string, aggregateType: string, aggregateId: string): StoredEvent[] {
  if (!keys.isKeyPart(aggregateId)) return [];
  const events: StoredEvent[] = [];
  for (const { value } of db.getRange(keys.streamIndexRange(instanceId, aggregateType, aggregateId))) {
    const position = value as number;
    events.push(decodeEvent(instanceId, position, db.get(keys.eventKey(instanceId, position))));
  }
  return events;
}

/**
 * A key range as an async iterable, read in synchronous pages so no cursor or read
 * transaction stays open while the consumer awaits between items.
 */
async function* pagedValues<T>(
  db: Db,
  rangeOf: () => { start: Key; end: Key },
  map: (key: Key, value: unknown) => T,
): AsyncGenerator<T> {
  const range = rangeOf();
  let start = range.start;
  let skip: Key | undefined;
  for (;;) {
    const page = Array.from(db.getRange({ start, end: range.end, limit: PAGE + (skip === undefined ? 0 : 1) }));
    const items: T[] = [];
    for (const { key, value } of page) {
      if (skip !== undefined && compareKeys(key, skip) === 0) continue;
      items.push(map(key, value));
    }
    yield* items;
    const last = page[page.length - 1];
    if (last === undefined || items.length < PAGE) return;
    start = skip = last.key;
  }
}

function createTtlStore(db: Db, clock: Clock, durable: <T>(write: Promise<T>) => Promise<T>, puts: TtlPutBatcher, claims: boolean): TtlStore {
  return {
    ...(claims
      ? {
          claim: (instanceId: string, table: string, key: string, holder: string, expiresAt: number) => {
            void puts.writeNow();
            return claimTtlRow(db, clock, durable, { instanceId, table, key, holder, expiresAt });
          },
        }
      : {}),
    put(instanceId, table, key, value, expiresAt) {
      try {
        const rowKey = keys.ttlKey(instanceId, table, key);
        // A key that may be too long for LMDB is written on its own, so its refusal fails this
        // put only, never a whole batch of other requests' puts.
        if (key.length + table.length > BATCHED_KEY_CHARS) return durable(Promise.all([db.put(keys.ttlIndexKey(expiresAt, instanceId, table, key), null), db.put(rowKey, value, expiresAt)])).then(() => undefined);
        // Group commit (lmdb-ttl-batch.ts): resolves once the batch holding the row and its
        // expiry group is on disk; the row's entry version is its expiry.
        return puts.put(instanceId, table, key, rowKey, value, expiresAt);
      } catch (err) {
        return Promise.reject(err);
      }
    },
    get(instanceId, table, key) {
      try {
        if (!keys.isKeyPart(key)) return NONE;
        const value = db.get(keys.ttlKey(instanceId, table, key));
        // The entry version is the expiry: read right after get, before any other read.
        if (value === undefined || getLastVersion() <= clock.now()) return NONE;
        return Promise.resolve(value);
      } catch (err) {
        return Promise.reject(err);
      }
    },
    async take(instanceId, table, key) {
      if (!keys.isKeyPart(key)) return undefined;
      const rowKey = keys.ttlKey(instanceId, table, key);
      void puts.writeNow();
      return durable(
        db.transaction(() => {
          const value = db.get(rowKey);
          if (value === undefined) return undefined;
          const live = getLastVersion() > clock.now();
          db.remove(rowKey);
          return live ? value : undefined;
        }),
      );
    },
    async delete(instanceId, table, key) {
      if (!keys.isKeyPart(key)) return;
      void puts.writeNow();
      await durable(db.remove(keys.ttlKey(instanceId, table, key)));
    },
    sweep: (now) => sweep(db, now),
  };
}

/** Writes the row when absent, expired, or held by the same holder (a renewal); true when written. */
async function claimTtlRow(db: Db, clock: Clock, durable: <T>(write: Promise<T>) => Promise<T>, row: { instanceId: string; table: string; key: string; holder: string; expiresAt: number }): Promise<boolean> {
  if (!keys.isKeyPart(row.key)) return false;
  const rowKey = keys.ttlKey(row.instanceId, row.table, row.key);
  return durable(
    db.transaction(() => {
      const held = db.get(rowKey);
      if (held !== undefined && held !== row.holder && getLastVersion() > clock.now()) return false;
      void db.put(keys.ttlIndexKey(row.expiresAt, row.instanceId, row.table, row.key), null);
      void db.put(rowKey, row.holder, row.expiresAt);
      return true;
    }),
  );
}

/**
 * Deletes expired rows in bounded batches, one write transaction per batch. Each batch starts
 * after the previous one's last key, so a stale read snapshot cannot make it loop.
 */
async function sweep(db: Db, now: number): Promise<number> {
  const range = keys.ttlIndexRange(now);
  let count = 0;
  let after: Key | undefined;
  for (;;) {
    const from = after;
    const page = Array.from(db.getRange({ start: from ?? range.start, end: range.end, limit: SWEEP_BATCH + 1 }));
    const batch = page.filter((entry) => from === undefined || compareKeys(entry.key, from) !== 0).slice(0, SWEEP_BATCH);
    if (batch.length > 0) count += await db.transaction(() => sweepBatch(db, batch));
    if (batch.length < SWEEP_BATCH) return count;
    after = batch[batch.length - 1]?.key;
  }
}

function sweepBatch(db: Db, entries: readonly { key: Key; value: unknown }[]): number {
  let count = 0;
  for (const { key: indexKey, value } of entries) {
    db.remove(indexKey);
    const group = keys.ttlRowsOfGroup(indexKey, value);
    if (group !== undefined) {
      for (const rowKey of group.rowKeys) {
        // As below: a row put again since (another expiry) is left alone.
        if (db.doesExist(rowKey, group.expiresAt)) {
          db.remove(rowKey);
          count += 1;
        }
      }
      continue;
    }
    const target = keys.ttlKeyOfIndex(indexKey);
    // A later put of the same key changed the row's version: that row is not expired yet.
    if (target !== undefined && db.doesExist(target.rowKey, target.expiresAt)) {
      db.remove(target.rowKey);
      count += 1;
    }
  }
  return count;
}
