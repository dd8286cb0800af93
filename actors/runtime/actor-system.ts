/**
 * The actor system: a registry of tenant actors (system, instance, organization), each with
 * a mailbox and a cache of the aggregates it loaded. Actors activate lazily (aggregates load
 * on first use) and passivate after an idle period. Commands append conditionally on the
 * stream versions they read; on conflict the actor reloads and re-runs them (bounded).
 */
import { AppError, aborted, alreadyExists, internalError, ProgrammerError, unavailable, type ErrorCode } from '../kernel/errors.js';
import type { AggregateKind, AggregateRecord, Loaded } from '../kernel/aggregate.js';
import type { CommandContext, CommandHandler, KnownRecord } from '../kernel/command.js';
import { SYSTEM_TENANT, type ChangedStream, type Clock, type IdGenerator, type IndexReads, type Logger, type ProjectionState, type SecretSealer, type StoreAdapter, type StoredEvent, type TtlStore, type UniqueKey } from '../kernel/ports.js';
import { InstanceReadState } from '../instance/read-state.js';
import { AggregateCache, HolderIndex } from './aggregate-cache.js';
import { Mailbox } from './mailbox.js';
import { cacheKey, runCommand, runCommands, type AppendGate, type RunCommandOptions, type Settled } from './run-command.js';

export type ActorAddress =
  | { readonly kind: 'system' }
  | { readonly kind: 'instance'; readonly instanceId: string }
  | { readonly kind: 'org'; readonly instanceId: string; readonly orgId: string };

export interface UniqueScopeError {
  readonly code: ErrorCode;
  readonly message: string;
}

export interface ActorSystemOptions {
  readonly store: StoreAdapter;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly sealer: SecretSealer;
  readonly logger: Logger;
  /** Idle time after which an actor passivates. */
  readonly idleMs?: number;
  /**
   * Deadline of an ask, measured on `clock`: a command still queued when it passes is dropped
   * without running, one running is refused right before its append; once the append started,
   * the asker waits for its real outcome.
   */
  readonly askTimeoutMs?: number;
  /** Commands one actor may hold (queued and running); past it an ask fails at once with `unavailable`. */
  readonly mailboxCapacity?: number;
  /** Commands all actors of one instance may hold together; past it an ask fails at once with `unavailable`. */
  readonly instanceQueueCapacity?: number;
  /** Aggregates one actor keeps cached at most (the oldest leave first; default 10,000). */
  readonly cacheLimit?: number;
  /** Attempts of a command that keeps losing conditional appends. */
  readonly maxAttempts?: number;
  /** How a lost unique claim is reported, by claim scope. */
  readonly uniqueScopes: Readonly<Record<string, UniqueScopeError>>;
  /** Runs each ask inside a tracing span (src/observability/tracing.ts); none when absent. */
  readonly traceAsk?: AskTracer;
}

/** Wraps one ask (queueing, the command, its append) for tracing. */
export type AskTracer = <R>(address: ActorAddress, work: () => Promise<R>) => Promise<R>;

export interface AskOptions {
  /** Id of the user on whose behalf the command runs. */
  readonly creator: string;
  /**
   * Ids the caller minted (`ids.next()`) for the aggregates the command creates. Such an
   * aggregate has no stream, so the command's first attempt takes it as absent without a store
   * read; the append still expects version 0, so an id that does exist is refused as a conflict
   * and the next attempt reads it.
   */
  readonly minted?: readonly string[];
  /**
   * Records the caller has just read from the store (a login's user, say) for aggregates the
   * command loads: one the actor has not cached is taken from here on the first attempt instead
   * of being read again. The append expects the record's version, so one that moved meanwhile is
   * refused as a conflict and the next attempt reads it; a refusal or no-op decided on it is
   * first checked against the stream's version, as one decided on a cached aggregate is.
   */
  readonly known?: readonly KnownRecord[];
}

/** The in-memory half of an actor: its mailbox and the aggregates it has loaded. */
export interface ActorCell {
  readonly key: string;
  readonly instanceId: string;
  readonly mailbox: Mailbox<Letter>;
  readonly cache: Map<string, Loaded<unknown>>;
  lastActivity: number;
}

/** One instance's loaded actors and the index of what their caches hold. */
interface InstanceActors {
  readonly cells: Set<ActorCell>;
  readonly index: HolderIndex;
}

export class ActorSystem {
  private readonly actors = new Map<string, ActorCell>();
  /**
   * The loaded actors of each instance, and which of their caches hold each aggregate, so
   * `forget` touches only the caches holding a changed stream, however many actors are loaded.
   */
  private readonly byInstance = new Map<string, InstanceActors>();
  /** Commands held (queued or running) by each instance's actors; absent at zero. */
  private readonly heldByInstance = new Map<string, number>();
  /** Each instance's read state (instance/read-state.ts): created by its first query, dropped when idle like the actors. */
  private readonly readStates = new Map<string, InstanceReadState>();
  private readonly sweepTimer: NodeJS.Timeout;
  private stopped = false;
  private readonly traceAsk: AskTracer | undefined;
  /** The wiring this system was started with; private: callers get the narrow ports below. */
  private readonly options: Required<Omit<ActorSystemOptions, 'traceAsk'>>;

  constructor({ traceAsk, ...options }: ActorSystemOptions) {
    this.traceAsk = traceAsk;
    this.options = { idleMs: 60_000, askTimeoutMs: 10_000, cacheLimit: 10_000, maxAttempts: 8, mailboxCapacity: 1_000, instanceQueueCapacity: 10_000, ...options };
    const every = Math.max(50, Math.floor(this.options.idleMs / 2));
    this.sweepTimer = setInterval(() => this.passivateIdle(), every);
    this.sweepTimer.unref();
  }

  /** The node's clock (the one asks' deadlines and commands' `now` are measured on). */
  get clock(): Clock {
    return this.options.clock;
  }

  /** The node's id generator (ids a caller chooses before a command: created resources). */
  get ids(): IdGenerator {
    return this.options.ids;
  }

  /** Seals and opens the secrets stored in aggregates (client secrets, TOTP seeds, SMTP passwords). */
  get sealer(): SecretSealer {
    return this.options.sealer;
  }

  /** The store's TTL rows (codes, tokens, pending ceremonies): read and written by edges, outside commands. */
  get ttl(): TtlStore {
    return this.options.store.ttl;
  }

  /** Sends a command to an actor and awaits its reply (with a deadline). */
  ask<C, R>(address: ActorAddress, handler: CommandHandler<C, R>, command: C, options: AskOptions): Promise<R> {
    if (this.stopped) return Promise.reject(new AppError('unavailable', 'node.stopping', 'the node is shutting down'));
    if (this.traceAsk !== undefined) return this.traceAsk(address, () => this.enqueue(address, handler, command, options));
    return this.enqueue(address, handler, command, options);
  }

  /**
   * Sends many commands of one handler to an actor as one letter and awaits each one's outcome,
   * in order: the same outcomes as one ask after the other, but the commands that write
   * different streams share one store append (run-command.ts `runCommands`) — for bulk work
   * such as an import, where one append per item would pay one write transaction each. The
   * letter's deadline is the ask deadline times the commands (what they would have had one
   * after the other). Rejects only when the letter itself is refused or expires
   * before it runs (mailbox full, node stopping, deadline): then no command ran.
   */
  askEach<C, R>(address: ActorAddress, handler: CommandHandler<C, R>, commands: readonly C[], options: AskOptions): Promise<Settled<R>[]> {
    if (this.stopped) return Promise.reject(new AppError('unavailable', 'node.stopping', 'the node is shutting down'));
    const work = (cell: ActorCell) => (gate: AppendGate) => this.processEach(cell, handler, commands, options, gate);
    // The deadline one ask after the other would have had at most: each command its own.
    const timeoutMs = this.options.askTimeoutMs * Math.max(1, commands.length);
    if (this.traceAsk !== undefined) return this.traceAsk(address, () => this.enqueueWork(address, work, timeoutMs));
    return this.enqueueWork(address, work, timeoutMs);
  }

  private enqueue<C, R>(address: ActorAddress, handler: CommandHandler<C, R>, command: C, options: AskOptions): Promise<R> {
    return this.enqueueWork(address, (cell) => (gate) => this.process(cell, handler, command, options, gate), this.options.askTimeoutMs);
  }

  private enqueueWork<R>(address: ActorAddress, work: (cell: ActorCell) => (gate: AppendGate) => Promise<R>, timeoutMs: number): Promise<R> {
    const cell = this.activate(address);
    const now = this.options.clock.now();
    cell.lastActivity = now;
    const instanceId = cell.instanceId;
    const held = this.heldByInstance.get(instanceId) ?? 0;
    if (held >= this.options.instanceQueueCapacity) return Promise.reject(queueFull('actor.instance_queue_full', 'too many commands are waiting for this instance; try again later'));
    if (cell.mailbox.pending >= this.options.mailboxCapacity) return Promise.reject(queueFull('actor.mailbox_full', 'too many commands are waiting for this resource; try again later'));
    return new Promise<R>((resolve, reject) => {
      const letter = new Letter(this.options.clock, now + timeoutMs, resolve as (value: unknown) => void, reject, work(cell));
      cell.mailbox.offer(letter); // room checked above
      this.heldByInstance.set(instanceId, held + 1);
      letter.timer = setTimeout(expire, timeoutMs, letter);
    });
  }

  /** Runs one letter of `cell` (the mailbox calls this one at a time); keeps its outcome for `delivered`. */
  private async deliver(letter: Letter): Promise<void> {
    try {
      if (letter.expired()) {
        // Still queued at its deadline: dropped without running.
        letter.ok = false;
        letter.failed = deadlineExceeded();
        return;
      }
      letter.state = RUNNING;
      letter.value = await letter.work(letter);
    } catch (error) {
      letter.ok = false;
      letter.failed = error;
    }
  }

  /** The letter left the mailbox: count it out of its instance, then answer the asker. */
  private delivered(cell: ActorCell, letter: Letter): void {
    clearTimeout(letter.timer);
    const held = (this.heldByInstance.get(cell.instanceId) ?? 1) - 1;
    if (held === 0) this.heldByInstance.delete(cell.instanceId);
    else this.heldByInstance.set(cell.instanceId, held);
    cell.lastActivity = this.options.clock.now();
    if (letter.ok) letter.succeed(letter.value);
    else letter.fail(letter.failed);
  }

  /**
   * The read state of an instance: its resolved settings behind typed queries, kept current by
   * `forget` (the change feed, the worker feed and this system's own appends). Queries never
   * queue behind commands. Created on first use; passivated with the instance's actors.
   */
  instanceState(instanceId: string): InstanceReadState {
    const now = this.options.clock.now();
    let state = this.readStates.get(instanceId);
    if (state === undefined) {
      const store = this.options.store;
      state = new InstanceReadState(instanceId, (table, id) => store.getRecord(instanceId, table, id) as Promise<AggregateRecord<unknown> | undefined>, now);
      this.readStates.set(instanceId, state);
    } else {
      state.lastActivity = now;
    }
    return state;
  }

  /** Reads an aggregate's current row straight from the store (queries never queue). */
  async readRecord<S>(instanceId: string, kind: AggregateKind<S>, id: string): Promise<AggregateRecord<S> | undefined> {
    return (await this.options.store.getRecord(instanceId, kind.table, id)) as AggregateRecord<S> | undefined;
  }

  /** Reads many rows of an aggregate kind straight from the store, in `ids` order (undefined: absent); one statement on PostgreSQL. */
  async readRecords<S>(instanceId: string, kind: AggregateKind<S>, ids: readonly string[]): Promise<readonly (AggregateRecord<S> | undefined)[]> {
    return (await this.options.store.getRecords(instanceId, kind.table, ids)) as readonly (AggregateRecord<S> | undefined)[];
  }

  /**
   * This system with the reads of one request of `instanceId` (readRecord(s), findUnique,
   * projectionState, the indexes' getRecords, and its index pages when the store has them there)
   * going through the store's requestReads: on PostgreSQL one position check for the request
   * instead of a round trip per read, read with a search's first page when that comes first. Commands
   * (ask) are unaffected. Itself when the store has no request reads (LMDB).
   */
  forRequest(instanceId: string): ActorSystem {
    const reads = this.options.store.requestReads?.(instanceId);
    if (reads === undefined) return this;
    const store = this.options.store;
    const indexes: IndexReads = {
      readIndex: (id, walk) => store.readIndex(id, walk),
      countIndex: (id, range) => store.countIndex(id, range),
      rowCounts: (id, table) => store.rowCounts(id, table),
      readSummaries: (id, table, ids) => store.readSummaries(id, table, ids),
      getRecords: (id, table, ids) => reads.getRecords(id, table, ids),
      ...(store.readIndexWithSummaries === undefined ? {} : { readIndexWithSummaries: reads.readIndexWithSummaries?.bind(reads) ?? store.readIndexWithSummaries.bind(store) }),
      ...(store.readIndexPage === undefined ? {} : { readIndexPage: reads.readIndexPage?.bind(reads) ?? store.readIndexPage.bind(store) }),
    };
    const view = Object.create(this) as ActorSystem;
    Object.defineProperties(view, {
      readRecord: { value: async (id: string, kind: AggregateKind<unknown>, rowId: string) => reads.getRecord(id, kind.table, rowId) },
      readRecords: { value: async (id: string, kind: AggregateKind<unknown>, rowIds: readonly string[]) => reads.getRecords(id, kind.table, rowIds) },
      findUnique: { value: (id: string, scope: string, value: string) => reads.findUnique(id, scope, value) },
      findUniques: { value: (id: string, keys: readonly UniqueKey[]) => reads.findUniques(id, keys) },
      projectionState: { value: (id: string) => reads.projectionState(id) },
      indexes: { value: indexes },
    });
    return view;
  }

  /** The store's indexes (kernel/indexes.ts): searches walk these instead of scanning rows. */
  get indexes(): IndexReads {
    return this.options.store;
  }

  /** Every row of an aggregate kind in one instance, in id order. */
  async *scanRecords<S>(instanceId: string, kind: AggregateKind<S>): AsyncIterable<AggregateRecord<S>> {
    for await (const row of this.options.store.scanRecords(instanceId, kind.table)) yield row as AggregateRecord<S>;
  }

  /** The aggregate holding a unique value (e.g. the org of a domain), or undefined. */
  findUnique(instanceId: string, scope: string, value: string): Promise<string | undefined> {
    return this.options.store.findUnique(instanceId, scope, value);
  }

  /**
   * The holders of several unique values, in `keys` order (undefined: unclaimed): lookups that do
   * not depend on each other, asked at once (in a request on PostgreSQL, one statement for those
   * not cached).
   */
  findUniques(instanceId: string, keys: readonly UniqueKey[]): Promise<(string | undefined)[]> {
    return Promise.all(keys.map(([scope, value]) => this.findUnique(instanceId, scope, value)));
  }

  /** Every (value, holder) pair of a unique scope in one instance. */
  scanUnique(instanceId: string, scope: string): AsyncIterable<{ value: string; holder: string }> {
    return this.options.store.scanUnique(instanceId, scope);
  }

  /** Events of one instance after a position, in position order (the audit read, SearchEvents). */
  readEvents(instanceId: string, after: number, limit: number): Promise<readonly StoredEvent[]> {
    return this.options.store.readEvents(instanceId, after, limit);
  }

  /** Events of one aggregate's stream, in version order. */
  readStream(instanceId: string, aggregateType: string, aggregateId: string): Promise<readonly StoredEvent[]> {
    return this.options.store.readStream(instanceId, aggregateType, aggregateId);
  }

  /** Newest event position and time of an instance (ListDetails.processedSequence/timestamp). */
  projectionState(instanceId: string): Promise<ProjectionState> {
    return this.options.store.projectionState(instanceId);
  }

  /**
   * The one invalidation of what this node holds for an instance: streams another worker or
   * node has moved, at their new versions (the change feed calls this). Cached aggregates are
   * dropped, so the next command reads them fresh instead of losing a conditional append
   * first, and so are read-state entries computed from older versions. Without `streams`
   * everything held for the instance is dropped. An entry already at (or past) the reported
   * version stays. A command in flight is unaffected: its append is conditional on the
   * versions it read. (This system's own appends reach the read state without this call.)
   */
  forget(instanceId: string, streams?: readonly ChangedStream[]): void {
    this.readStates.get(instanceId)?.applyChange(streams);
    const loaded = this.byInstance.get(instanceId);
    if (loaded === undefined) return;
    if (streams === undefined) {
      for (const cell of loaded.cells) cell.cache.clear();
      return;
    }
    for (const stream of streams) {
      loaded.index.dropOlder(cacheKey(stream.aggregateType, stream.aggregateId), stream.version);
    }
  }

  /** Number of actors currently in memory. */
  get loadedCount(): number {
    return this.actors.size;
  }

  /** Stops accepting commands and waits for every mailbox to drain. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await Promise.all([...this.actors.values()].map((cell) => cell.mailbox.drained()));
    this.actors.clear();
    this.byInstance.clear();
    this.readStates.clear();
  }

  private activate(address: ActorAddress): ActorCell {
    const key = addressKey(address);
    let cell = this.actors.get(key);
    if (cell === undefined) {
      const instanceId = address.kind === 'system' ? SYSTEM_TENANT : address.instanceId;
      let loaded = this.byInstance.get(instanceId);
      if (loaded === undefined) this.byInstance.set(instanceId, (loaded = { cells: new Set(), index: new HolderIndex() }));
      cell = {
        key,
        instanceId,
        mailbox: new Mailbox<Letter>(this.options.mailboxCapacity, (letter) => this.deliver(letter), (letter) => this.delivered(cell as ActorCell, letter)),
        cache: new AggregateCache(this.options.cacheLimit, loaded.index),
        lastActivity: this.options.clock.now(),
      };
      this.actors.set(key, cell);
      loaded.cells.add(cell);
    }
    return cell;
  }

  private process<C, R>(cell: ActorCell, handler: CommandHandler<C, R>, command: C, options: AskOptions, gate: AppendGate): Promise<R> {
    return this.settle(cell, runCommand(this.commandOptions(cell, handler, command, options, gate)));
  }

  private async processEach<C, R>(cell: ActorCell, handler: CommandHandler<C, R>, commands: readonly C[], options: AskOptions, gate: AppendGate): Promise<Settled<R>[]> {
    if (commands.length === 0) return [];
    try {
      return await runCommands({ ...this.commandOptions(cell, handler, commands[0]!, options, gate), commands, settle: (run) => this.settle(cell, run()) });
    } finally {
      cell.lastActivity = this.options.clock.now();
    }
  }

  /** One object per ask (the refresh-token grant asks on a hot path). */
  private commandOptions<C, R>(cell: ActorCell, handler: CommandHandler<C, R>, command: C, options: AskOptions, gate: AppendGate): RunCommandOptions<C, R> {
    const ctx: CommandContext = {
      instanceId: cell.instanceId,
      now: this.options.clock.now(),
      creator: options.creator,
      ids: this.options.ids,
      sealer: this.options.sealer,
    };
    return {
      store: this.options.store,
      cache: cell.cache,
      handler,
      command,
      ctx,
      maxAttempts: this.options.maxAttempts,
      clock: this.options.clock,
      onUnique: (scope: string) => this.uniqueError(scope),
      gate,
      onAppended: (events: readonly StoredEvent[]) => this.readStates.get(cell.instanceId)?.applyChange(streamsOf(events)),
      ...(options.minted === undefined ? {} : { minted: options.minted }),
      ...(options.known === undefined ? {} : { known: options.known }),
    };
  }

  /** Awaits one command's work; a crash (not an AppError) restarts the actor from the store and answers `internal`. */
  private async settle<R>(cell: ActorCell, work: Promise<R>): Promise<R> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof AppError) throw error;
      // A crash: restart the actor from persisted state; the caller gets `internal`.
      cell.cache.clear();
      this.options.logger.error({ err: error, actor: cell.key }, 'actor crashed; restarted from the store');
      throw internalError('actor.crashed', 'internal error', { cause: error });
    } finally {
      cell.lastActivity = this.options.clock.now();
    }
  }

  private uniqueError(scope: string): AppError {
    const known = this.options.uniqueScopes[scope];
    if (known === undefined) return aborted('store.unique_conflict', 'a unique value is already taken');
    return alreadyExists(known.code, known.message);
  }

  /** Drops actors idle for at least `idleMs` with empty mailboxes (runs on a timer; callable directly). */
  passivateIdle(): void {
    const now = this.options.clock.now();
    for (const [key, cell] of this.actors) {
      if (cell.mailbox.pending === 0 && now - cell.lastActivity >= this.options.idleMs) {
        this.actors.delete(key);
        cell.cache.clear(); // out of the instance's holder index
        const loaded = this.byInstance.get(cell.instanceId);
        loaded?.cells.delete(cell);
        if (loaded?.cells.size === 0) this.byInstance.delete(cell.instanceId);
      }
    }
    for (const [instanceId, state] of this.readStates) {
      if (now - state.lastActivity >= this.options.idleMs) this.readStates.delete(instanceId);
    }
  }

  /** Instances whose read state is in memory. */
  get readStateCount(): number {
    return this.readStates.size;
  }
}

function addressKey(address: ActorAddress): string {
  switch (address.kind) {
    case 'system':
      return 'system';
    case 'instance':
      return `instance:${address.instanceId}`;
    case 'org':
      return `org:${address.instanceId}:${address.orgId}`;
    default:
      throw new ProgrammerError('unknown actor address');
  }
}

/** The streams an append moved, at their new versions (events are in version order per stream). */
function streamsOf(events: readonly StoredEvent[]): ChangedStream[] {
  const streams: ChangedStream[] = [];
  for (const event of events) {
    const known = streams.findIndex((s) => s.aggregateType === event.aggregateType && s.aggregateId === event.aggregateId);
    const stream = { aggregateType: event.aggregateType, aggregateId: event.aggregateId, version: event.version };
    if (known === -1) streams.push(stream);
    else streams[known] = stream;
  }
  return streams;
}

function queueFull(code: ErrorCode, message: string): AppError {
  return unavailable(code, message, { retryAfterSeconds: 1 });
}

function deadlineExceeded(): AppError {
  return new AppError('deadline_exceeded', 'actor.deadline', 'the request took too long');
}

const QUEUED = 0;
const RUNNING = 1;
const APPENDING = 2;

/**
 * One ask in a mailbox: the command's work, its deadline and its asker. The asker is settled
 * once: by the outcome, or by the deadline — at the timer while the command is queued or before
 * its append (the command then never appends: `enter` refuses), never while an append is under
 * way (the asker gets that append's real outcome).
 */
class Letter implements AppendGate {
  state = QUEUED;
  settled = false;
  /** Set when the timer fired: the asker may already have its deadline_exceeded. */
  timedOut = false;
  timer: NodeJS.Timeout | undefined = undefined;
  /** The outcome, kept until the mailbox has counted the letter out. */
  ok = true;
  value: unknown = undefined;
  failed: unknown = undefined;

  constructor(
    private readonly clock: Clock,
    readonly deadline: number,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (error: unknown) => void,
    readonly work: (gate: AppendGate) => Promise<unknown>,
  ) {}

  expired(): boolean {
    return this.timedOut || this.clock.now() >= this.deadline;
  }

  enter(): void {
    if (this.expired()) throw deadlineExceeded();
    this.state = APPENDING;
  }

  leave(): void {
    this.state = RUNNING;
  }

  succeed(value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(value);
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/** The ask's timer: answer the asker now unless an append is under way (then its outcome answers). */
function expire(letter: Letter): void {
  letter.timedOut = true;
  if (letter.state !== APPENDING) letter.fail(deadlineExceeded());
}
