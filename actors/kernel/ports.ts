/**
 * The ports: everything the domain needs from the outside world, as interfaces.
 * src/store, src/crypto and src/cli implement them; actors/ never imports src/.
 * Every method that touches storage is keyed by instance id first: no call can read
 * or write another tenant's keys by accident.
 */
import type { IndexCatalog, RowSummary } from './indexes.js';

/** Who owns a resource (seed 000 "Owner"). The system owner has an empty id. */
export type OwnerType = 'system' | 'instance' | 'org';

export interface Owner {
  readonly type: OwnerType;
  readonly id: string;
}

/** The reserved tenant id under which system-level state (instances, domains) is kept. */
export const SYSTEM_TENANT = '_system';

/** An event as decided by a command, before the store has given it a place. */
export interface NewEvent {
  /** e.g. `org`, `user`, `target`; with aggregateId it names the stream. */
  readonly aggregateType: string;
  readonly aggregateId: string;
  /** `<aggregate>.<type>.<action>`, past tense: `org.added`, `action.target.changed`. */
  readonly type: string;
  readonly owner: Owner;
  /** Id of the user whose request caused the event ('' for the system itself). */
  readonly creator: string;
  readonly payload: unknown;
}

/** An event as it is stored: with its stream version and per-instance position. */
export interface StoredEvent extends NewEvent {
  readonly instanceId: string;
  /** Version of the aggregate's stream after this event (1 for the first). */
  readonly version: number;
  /** Per-instance monotonic position; reported as `sequence` in Details. */
  readonly position: number;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

/** The stream version an append expects; 0 means "the stream must not exist yet". */
export interface StreamExpectation {
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly expectedVersion: number;
}

/**
 * A claim on a value that must be unique within the instance (an org name, a domain, a
 * client id). The holder is the aggregate that owns the value. A claim held by the same
 * holder is not a conflict. Claims double as lookup indexes (value → holder).
 */
export interface UniqueClaim {
  readonly scope: string;
  readonly value: string;
  readonly holder: string;
}

export interface UniqueRelease {
  readonly scope: string;
  readonly value: string;
}

/** A read-model row written in the same transaction as the events (null deletes it). */
export interface RecordWrite {
  readonly table: string;
  readonly id: string;
  readonly value: unknown;
}

/** An entry of an index kept across instances (StoreAdapter.readAcrossInstances). */
export interface AcrossInstancesEntry {
  readonly term: string;
  readonly instanceId: string;
  readonly id: string;
}

export interface AppendRequest {
  readonly instanceId: string;
  /** Epoch milliseconds stamped on every event of this append. */
  readonly createdAt: number;
  /** One expectation per stream the events touch (and may list streams read but not written). */
  readonly expectations: readonly StreamExpectation[];
  readonly events: readonly NewEvent[];
  readonly claims?: readonly UniqueClaim[];
  readonly releases?: readonly UniqueRelease[];
  /**
   * Runs synchronously inside the write transaction, after positions are assigned, and
   * returns the read-model rows to write with the events. Must not do I/O or await.
   */
  readonly project: (stored: readonly StoredEvent[]) => readonly RecordWrite[];
}

export type AppendResult =
  | { readonly ok: true; readonly events: readonly StoredEvent[] }
  | {
      readonly ok: false;
      readonly reason: 'conflict';
      readonly aggregateType: string;
      readonly aggregateId: string;
      readonly actualVersion: number;
    }
  | {
      readonly ok: false;
      readonly reason: 'unique';
      readonly scope: string;
      readonly value: string;
      readonly holder: string;
    };

/** Where an aggregate lives: its read-model row (table, id) and its stream (type, id). */
export interface AggregateLocation {
  readonly table: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
}

/** An aggregate as the store holds it: its row (undefined when absent) and its stream version (0 when none). */
export interface StoredAggregate {
  readonly record: unknown;
  readonly version: number;
}

/** Newest event a projection reflects: `processedSequence` and `timestamp` of ListDetails. */
export interface ProjectionState {
  readonly position: number;
  readonly createdAt: number;
}

/** Short-lived protocol state (codes, sessions, tokens): no events, swept on expiry. */
export interface TtlStore {
  /** Writes (or overwrites) a row that disappears at `expiresAt` (epoch ms). */
  put(instanceId: string, table: string, key: string, value: unknown, expiresAt: number): Promise<void>;
  /** The row, or undefined when absent or expired. */
  get(instanceId: string, table: string, key: string): Promise<unknown>;
  /** Reads and deletes atomically (single use, across processes): at most one caller gets the row. */
  take(instanceId: string, table: string, key: string): Promise<unknown>;
  delete(instanceId: string, table: string, key: string): Promise<void>;
  /** Deletes expired rows of every instance; returns how many. */
  sweep(now: number): Promise<number>;
  /**
   * Writes the row unless a live row with another holder exists, atomically across every
   * process sharing the store; true when written. A holder renews its own row (a lease); a
   * fresh holder per call makes it "first use wins" (jti replay). Optional: a store used by
   * one process only (LMDB) may leave it out, and callers fall back to get + put.
   */
  claim?(instanceId: string, table: string, key: string, holder: string, expiresAt: number): Promise<boolean>;
}

/** One stream an append touched, at the version it reached. */
export interface ChangedStream {
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly version: number;
}

/**
 * Events another process appended: positions `fromPosition..toPosition` of one instance.
 * `streams` is undefined when the feed only knows that the instance changed (too many
 * events to list, or a catch-up too long to read): treat every cached state of it as stale.
 */
/**
 * One committed append batch of an instance, as the request read cache needs it: the positions it
 * moved the instance from and to, and every row and unique claim it wrote. Complete by
 * construction (built by the append from what it wrote), so a cache at `from` that drops these
 * entries holds nothing the batch outdated.
 */
export interface CommittedBatch {
  readonly instanceId: string;
  /** The instance's position the batch found under the lock. */
  readonly from: number;
  readonly to: number;
  readonly createdAt: number;
  /** `[table, id]` of every row written or deleted. */
  readonly records: readonly (readonly [string, string])[];
  /** `[scope, value]` of every claim taken or released. */
  readonly claims: readonly (readonly [string, string])[];
}

/** See `StoreAdapter.committedBatches`. */
export interface CommittedBatches {
  /** Hears every batch this store commits, after its COMMIT (one listener: the worker feed). */
  listen(listener: (batch: CommittedBatch) => void): void;
  /** A batch another worker of this node committed on the same database. */
  apply(batch: CommittedBatch): void;
}

export interface StoreChange {
  readonly instanceId: string;
  readonly fromPosition: number;
  readonly toPosition: number;
  readonly streams?: readonly ChangedStream[];
  /** Epoch ms the change was committed (as the writing node's clock saw it), when known: for the change-feed lag. */
  readonly committedAt?: number;
}

/**
 * Changes made by other processes sharing the store (PostgreSQL LISTEN/NOTIFY), so nodes can
 * drop what they cached. A store used by one process (LMDB) has none. Delivery is at least
 * once and per instance in position order; after a lost connection the feed catches up by
 * position before reporting newer changes.
 */
export interface ChangeFeed {
  /** Starts listening (on the first call); resolves once listening. Returns the unsubscribe. */
  subscribe(listener: (change: StoreChange) => void): Promise<() => void>;
}

/**
 * One item of a whole-store dump (`tessera copy-store`): everything a store holds, in a form
 * any adapter can load back faithfully. Events keep their positions, versions and times;
 * stream indexes and expiry indexes are not dumped (the loader rebuilds them).
 */
export type DumpEntry =
  | { readonly kind: 'event'; readonly event: StoredEvent }
  | { readonly kind: 'head'; readonly instanceId: string; readonly aggregateType: string; readonly aggregateId: string; readonly version: number }
  | { readonly kind: 'position'; readonly instanceId: string; readonly position: number; readonly createdAt: number }
  | { readonly kind: 'record'; readonly instanceId: string; readonly table: string; readonly id: string; readonly value: unknown }
  | { readonly kind: 'unique'; readonly instanceId: string; readonly scope: string; readonly value: string; readonly holder: string }
  | { readonly kind: 'ttl'; readonly instanceId: string; readonly table: string; readonly key: string; readonly value: unknown; readonly expiresAt: number }
  | { readonly kind: 'meta'; readonly key: string; readonly value: unknown };

export type DumpKind = DumpEntry['kind'];

/** How many entries of each kind a dump or load has seen so far. */
export type DumpCounts = Record<DumpKind, number>;

export interface DumpOptions {
  /** TTL rows with expiresAt <= now are left out (default: wall clock). */
  readonly now?: number;
}

export interface LoadOptions {
  /** Called after every committed batch with the running counts (progress output). */
  readonly onProgress?: (counts: Readonly<DumpCounts>) => void;
}

/** The storage port. LMDB and PostgreSQL implement it; both pass test/store/. */
export interface StoreAdapter extends IndexReads {
  readonly kind: 'lmdb' | 'postgres';
  /** The indexes this store maintains (none when opened without a catalog). */
  readonly catalog: IndexCatalog;
  /** Conditional, atomic append of events, claims and read-model rows. */
  append(request: AppendRequest): Promise<AppendResult>;
  /** Current version of a stream (0 when it does not exist). */
  streamVersion(instanceId: string, aggregateType: string, aggregateId: string): Promise<number>;
  /** Events of one instance with position > `after`, in position order. */
  readEvents(instanceId: string, after: number, limit: number): Promise<readonly StoredEvent[]>;
  /** Events of one stream in version order. */
  readStream(instanceId: string, aggregateType: string, aggregateId: string): Promise<readonly StoredEvent[]>;
  /** Position and time of the newest event of the instance (0/0 when none). */
  projectionState(instanceId: string): Promise<ProjectionState>;
  getRecord(instanceId: string, table: string, id: string): Promise<unknown>;
  /**
   * The rows and stream versions of many aggregates, in `aggregates` order: what getRecord and
   * streamVersion answer for each, in one statement on PostgreSQL (LMDB: its local gets). Bulk
   * commands (ActorSystem.askEach) load their aggregates with it.
   */
  readAggregates(instanceId: string, aggregates: readonly AggregateLocation[]): Promise<readonly StoredAggregate[]>;
  /** Every row of a table of one instance, in id order. */
  scanRecords(instanceId: string, table: string): AsyncIterable<unknown>;
  /**
   * The instances with at least one row of `table`, in id order, for a table of LISTED_TABLES
   * (actors/index-catalog.ts; any other table rejects): what a periodic pass visits instead of
   * every instance. Kept in the append transaction (LMDB: a key per row; PostgreSQL: a partial
   * index of `records`).
   */
  instancesWithRows(table: string): AsyncIterable<string>;
  /**
   * The entries of an index declared `acrossInstances` (kernel/indexes.ts) whose term is at most
   * `through`, across every instance, in term order (then instance, then row id): the rows a
   * periodic pass finds due by a time (numberTerm) without visiting every instance. Kept in the
   * append transaction like the index itself; any other index rejects.
   */
  readAcrossInstances(table: string, index: string, through: string): AsyncIterable<AcrossInstancesEntry>;
  /** The holder of a unique value, or undefined. */
  findUnique(instanceId: string, scope: string, value: string): Promise<string | undefined>;
  /** Every (value, holder) pair of a scope, in value order. */
  scanUnique(instanceId: string, scope: string): AsyncIterable<{ value: string; holder: string }>;
  /** Small key-value settings of the node itself (e.g. first-run markers). */
  getMeta(key: string): Promise<unknown>;
  putMeta(key: string, value: unknown): Promise<void>;
  readonly ttl: TtlStore;
  /**
   * Everything the store holds, streamed (not a snapshot: stop the writers first). Expired
   * TTL rows are skipped.
   */
  dump(options?: DumpOptions): AsyncIterable<DumpEntry>;
  /**
   * Writes a dump into this store, in batched transactions, and resolves with the counts.
   * Refuses (throws, writing nothing) unless the store is empty.
   */
  load(entries: AsyncIterable<DumpEntry>, options?: LoadOptions): Promise<DumpCounts>;
  /** Other processes' appends; absent when the store has a single process (LMDB). */
  readonly changes?: ChangeFeed;
  /**
   * Makes the next reads of this thread see every commit made so far by other threads or
   * processes (LMDB: lmdb-js keeps a read transaction open until the next timer turn; this resets
   * it). Absent when every read sees the latest commit anyway (PostgreSQL).
   */
  renewReads?(): void;
  /**
   * Resolves when the store answers a trivial query within `timeoutMs`, rejects otherwise
   * (readiness); absent when the store cannot be down while the process runs (LMDB).
   */
  checkHealth?(timeoutMs: number): Promise<void>;
  /**
   * The reads of one request of `instanceId`, checked once against the instance's position and
   * served from the node's cache while it has not moved (PostgreSQL, src/store/postgres-read-cache.ts);
   * absent when the store's reads are local anyway (LMDB).
   */
  requestReads?(instanceId: string): RequestReads;
  /**
   * The request reads' cache kept current across the worker threads of one node (PostgreSQL):
   * every batch this store committed is told to `listen`'s listener; `apply` takes a batch another
   * worker's store committed on the same database, so this store's cache moves past it instead of
   * dropping everything it holds for the instance. Absent when there is no such cache (LMDB).
   */
  readonly committedBatches?: CommittedBatches;
  /** Statements sent to the database since the store opened (round trips; metrics, bench); absent for LMDB. */
  statementCount?(): number;
  /** Waits for pending writes to be durable, then releases the store. */
  close(): Promise<void>;
}

/**
 * A part of one index (kernel/indexes.ts): all of it, one term, or the terms with a prefix;
 * optionally only the terms containing `contains` or ending with `suffix` (the store checks
 * each key's term while it walks: a scan of the index keys, never of rows).
 */
export interface IndexRange {
  readonly table: string;
  readonly index: string;
  readonly equals?: string;
  readonly prefix?: string;
  readonly contains?: string;
  readonly suffix?: string;
}

/** A keyset walk along an index range, in term order (ties by id) or reversed. */
export interface IndexWalk extends IndexRange {
  readonly reverse?: boolean;
  /** Continue strictly after this entry, in walk direction. */
  readonly after?: IndexCursor;
  /** Entries to skip first (after `after`). */
  readonly offset?: number;
  readonly limit: number;
  /**
   * readIndexWithSummaries only: the first `rows` entries of the walk come with their row
   * (`SummarizedEntry.row`), read in the same round trip. For tables whose rows are stored under
   * their own name (not sub-rows).
   */
  readonly rows?: number;
  /**
   * readIndexPage only: only entries whose scope is the id of a row of this table (e.g. users of
   * organizations that still exist), skipped before `offset`; the total counts only such scopes.
   */
  readonly scopeRows?: string;
}

export interface IndexCursor {
  readonly term: string;
  readonly id: string;
}

/** One index entry: a term of a row, the row's id and scope (no row is read). */
export interface IndexEntry extends IndexCursor {
  readonly scope: string;
}

/**
 * The query side of the store: ordered indexes kept in the append transaction (declared by
 * an IndexCatalog the store was opened with). Reads never decode rows, except getRecords.
 */
export interface IndexReads {
  /** Entries of an index range in walk order. */
  readIndex(instanceId: string, walk: IndexWalk): Promise<readonly IndexEntry[]>;
  /** Number of entries in an index range (counts keys; no row is read). */
  countIndex(instanceId: string, range: IndexRange): Promise<number>;
  /** Maintained row counts of a table, per scope (scopes with no rows left out). */
  rowCounts(instanceId: string, table: string): Promise<readonly { readonly scope: string; readonly count: number }[]>;
  /** The summaries (scope and terms of every index) of rows, in `ids` order; undefined when absent. */
  readSummaries(instanceId: string, table: string, ids: readonly string[]): Promise<readonly (RowSummary | undefined)[]>;
  /** Rows by id, in `ids` order; undefined when absent. */
  getRecords(instanceId: string, table: string, ids: readonly string[]): Promise<readonly unknown[]>;
  /**
   * readIndex with each entry's summary, in one round trip (PostgreSQL). Optional: the search
   * executor otherwise calls readIndex, then readSummaries.
   */
  readIndexWithSummaries?(instanceId: string, walk: IndexWalk): Promise<readonly SummarizedEntry[]>;
  /**
   * A page of a table's index with the rows and the table's row count (the sum of rowCounts), in
   * one round trip (PostgreSQL). For tables whose rows are stored under their own name (not
   * sub-rows). Optional: the executor otherwise calls rowCounts, readIndex, then getRecords.
   */
  readIndexPage?(instanceId: string, walk: IndexWalk): Promise<IndexPage>;
}

export interface SummarizedEntry extends IndexEntry {
  readonly summary: RowSummary | undefined;
  /** The row, for the first `IndexWalk.rows` entries (present, and undefined when the row is gone). */
  readonly row?: unknown;
}

export interface IndexPage {
  readonly entries: readonly IndexEntry[];
  /** The entries' rows, in entry order (undefined: the row is gone). */
  readonly rows: readonly unknown[];
  /** Rows of the table (with `IndexWalk.scopeRows`: in the scopes that are rows of that table). */
  readonly total: number;
}

/**
 * What one request reads through StoreAdapter.requestReads: the same answers as the store's own
 * methods, each at least as new as the instance's position when the request's first read ran.
 * The index reads are optional: a store whose first read of a request can be one of them (a
 * search) may answer the position check with it (PostgreSQL: in the same statement).
 */
export type RequestReads = Pick<StoreAdapter, 'getRecord' | 'getRecords' | 'findUnique' | 'projectionState'> &
  Pick<IndexReads, 'readIndexWithSummaries' | 'readIndexPage'> & {
    /** Holders of several unique values, in `keys` order (undefined: unclaimed): those not cached in one statement. */
    findUniques(instanceId: string, keys: readonly UniqueKey[]): Promise<(string | undefined)[]>;
  };

/** A unique value: `[scope, value]`. */
export type UniqueKey = readonly [scope: string, value: string];

/** Time, injected so tests and deciders never read the wall clock themselves. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** Generates resource ids (decimal snowflake strings). */
export interface IdGenerator {
  next(): string;
}

/** Encrypts secrets at rest with the master key (AES-256-GCM). */
export interface SecretSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/** The slice of a structured logger the domain uses. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
