/**
 * One command, start to reply: load the named aggregates (cache first), decide, append
 * conditionally on the loaded versions, fold the stored events into the rows inside the
 * write transaction, update the cache, reply. A lost conditional append reloads and retries.
 */
import { aborted, type AppError, isAppError, ProgrammerError } from '../kernel/errors.js';
import { foldRecord, type AggregateKind, type AggregateRecord, type Loaded } from '../kernel/aggregate.js';
import type { AggregateRef, CommandContext, CommandHandler, Decision, KnownRecord, LoadedSet, Outcome } from '../kernel/command.js';
import type { Clock, RecordWrite, StoreAdapter, StoredEvent } from '../kernel/ports.js';

export interface RunCommandOptions<C, R> {
  readonly store: StoreAdapter;
  readonly cache: Map<string, Loaded<unknown>>;
  readonly handler: CommandHandler<C, R>;
  readonly command: C;
  readonly ctx: CommandContext;
  readonly maxAttempts: number;
  readonly clock: Clock;
  readonly onUnique: (scope: string) => AppError;
  /** Guards each append with the ask's deadline (actor-system.ts); none for callers without one. */
  readonly gate?: AppendGate;
  /** Told the events of each successful append, before the command replies (read-your-writes for the instance's read state). */
  readonly onAppended?: (events: readonly StoredEvent[]) => void;
  /** Ids minted for aggregates the command creates (AskOptions.minted): taken as absent, unread, on the first attempt. */
  readonly minted?: readonly string[];
  /** Records the caller read (AskOptions.known): taken for uncached aggregates, unread, on the first attempt. */
  readonly known?: readonly KnownRecord[];
}

/**
 * The deadline of an ask as seen from inside the command: `enter` runs right before the append
 * starts and throws `deadline_exceeded` once the deadline has passed (nothing is appended after
 * the caller may have been told it failed); `leave` runs when the append returned. While an
 * append is under way the asker waits for its real outcome.
 */
export interface AppendGate {
  enter(): void;
  leave(): void;
}

export async function runCommand<C, R>(options: RunCommandOptions<C, R>): Promise<R> {
  const { store, cache, handler, command } = options;
  let ctx = options.ctx;
  for (let attempt = 1; attempt <= options.maxAttempts; attempt += 1) {
    const refs = handler.load(command, ctx);
    // After a conflict a minted id is read like any other (it may exist after all), and a known record is read again.
    const { loaded, fromCache } = await loadAll(store, cache, ctx.instanceId, refs, attempt === 1 ? options : undefined);
    let decision;
    try {
      decision = handler.decide(setOf(loaded), command, ctx);
    } catch (error) {
      // A refusal based on a cached (or known) aggregate another actor (or node) has since
      // changed would be wrong: drop stale entries and decide again. Decisions with events need
      // no such check, because their append is conditional on the versions read.
      if (isAppError(error) && (await dropStale(store, cache, ctx.instanceId, fromCache)) && attempt < options.maxAttempts) continue;
      throw error;
    }
    if (decision.events.length === 0) {
      // A no-op is a verdict on what was read, like a refusal, and has no append to guard it.
      if ((await dropStale(store, cache, ctx.instanceId, fromCache)) && attempt < options.maxAttempts) continue;
      return decision.reply(outcomeOf([], loaded));
    }

    const next = new Map<string, Loaded<unknown>>();
    const gate = options.gate;
    gate?.enter();
    let result;
    try {
      result = await store.append({
        instanceId: ctx.instanceId,
        createdAt: ctx.now,
        expectations: [...loaded.values()].map((l) => ({
          aggregateType: l.kind.type,
          aggregateId: l.id,
          expectedVersion: l.version,
        })),
        events: decision.events,
        ...(decision.claims === undefined ? {} : { claims: decision.claims }),
        ...(decision.releases === undefined ? {} : { releases: decision.releases }),
        project: (stored) => projectRows(loaded, stored, next),
      });
    } finally {
      gate?.leave();
    }
    if (result.ok) {
      for (const [key, value] of next) cache.set(key, value);
      options.onAppended?.(result.events);
      return decision.reply(outcomeOf(result.events, new Map([...loaded, ...next])));
    }
    if (result.reason === 'unique') throw options.onUnique(result.scope);
    cache.delete(cacheKey(result.aggregateType, result.aggregateId));
    ctx = { ...ctx, now: options.clock.now() };
  }
  throw aborted('store.contention', 'the resource is being changed concurrently; try again');
}

/** One command's fate in `runCommands`: its reply, or what `runCommand` would have thrown. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** A command decided into the pending shared append: what it loaded, decided and writes. */
interface Pending<R> {
  readonly index: number;
  readonly loaded: Map<string, Loaded<unknown>>;
  readonly decision: Decision<R>;
  readonly streams: ReadonlySet<string>;
}

/**
 * Many commands of one handler, in order, with the outcome `runCommand` one after the other
 * would give each — but the commands that append go to the store together, in one append (one
 * write transaction, projections and indexes included) as long as none reads or writes a stream
 * another of them writes. A command that would (or that is refused, or decides nothing) first
 * sends the pending ones, then runs alone through `runCommand`. If the shared append is refused
 * (a stale version, a unique value taken, also between two of them) or throws, each of its
 * commands runs again alone, in order: a bad command fails alone, as if the commands had never
 * been batched. `settle` wraps each alone run (the actor's crash handling). The aggregates the
 * commands name are read first, together (`preload`).
 */
export async function runCommands<C, R>(
  options: Omit<RunCommandOptions<C, R>, 'command'> & { readonly commands: readonly C[]; readonly settle: (run: () => Promise<R>) => Promise<R> },
): Promise<Settled<R>[]> {
  const { commands, ctx } = options;
  const results: Settled<R>[] = new Array<Settled<R>>(commands.length);
  await preload(options, commands);
  let pending: Pending<R>[] = [];
  const alone = async (index: number) => {
    try {
      results[index] = { ok: true, value: await options.settle(() => runCommand({ ...options, command: commands[index]!, ctx: { ...ctx, now: options.clock.now() } })) };
    } catch (error) {
      results[index] = { ok: false, error };
    }
  };
  const flush = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 1) return alone(batch[0]!.index);
    if (batch.length > 1 && !(await appendTogether(options, batch, results))) for (const p of batch) await alone(p.index);
  };
  for (let index = 0; index < commands.length; index += 1) {
    const command = commands[index]!;
    let decided: Pending<R> | undefined;
    try {
      decided = await decideOne(options, command, index, pending);
      if (decided === undefined && pending.length > 0) {
        await flush(); // it touches what the pending commands write: decide it again after them
        decided = await decideOne(options, command, index, pending);
      }
    } catch {
      decided = undefined; // refused (or crashed): runs alone, which answers with the error
    }
    if (decided !== undefined) {
      pending.push(decided);
      continue;
    }
    await flush();
    await alone(index);
  }
  await flush();
  return results;
}

/**
 * Puts into the cache, with one store read (readAggregates), every aggregate `commands` name
 * that the cache lacks: on PostgreSQL one statement for the whole letter instead of a row read
 * and a version read per aggregate, each a round trip. A failed read loads nothing; each
 * command then loads its own aggregates and meets the cause itself.
 */
async function preload<C>(options: Pick<RunCommandOptions<C, unknown>, 'store' | 'cache' | 'handler' | 'ctx'>, commands: readonly C[]): Promise<void> {
  const { store, cache, handler, ctx } = options;
  try {
    await readMissing(store, cache, ctx.instanceId, commands.flatMap((command) => handler.load(command, ctx)));
  } catch {
    // Nothing cached: each command loads its aggregates itself and meets the cause there.
  }
}

/** Decides `command` for the shared append; undefined when it must run alone or after `pending` (it reads or writes their streams, or decides nothing). */
async function decideOne<C, R>(options: Omit<RunCommandOptions<C, R>, 'command'>, command: C, index: number, pending: readonly Pending<R>[]): Promise<Pending<R> | undefined> {
  const { store, cache, handler, ctx } = options;
  const refs = handler.load(command, ctx);
  const { loaded } = await loadAll(store, cache, ctx.instanceId, refs);
  const decision = handler.decide(setOf(loaded), command, ctx);
  if (decision.events.length === 0) return undefined;
  const streams = new Set(decision.events.map((e) => cacheKey(e.aggregateType, e.aggregateId)));
  for (const p of pending) {
    for (const key of loaded.keys()) if (p.streams.has(key)) return undefined;
    for (const key of p.loaded.keys()) if (streams.has(key)) return undefined;
  }
  return { index, loaded, decision, streams };
}

/** One append for every command of `batch`; false (nothing written, nothing answered) when the store refused it or it threw. */
async function appendTogether<C, R>(options: Omit<RunCommandOptions<C, R>, 'command'>, batch: readonly Pending<R>[], results: Settled<R>[]): Promise<boolean> {
  const { store, cache, ctx } = options;
  const loaded = new Map<string, Loaded<unknown>>();
  for (const p of batch) for (const [key, entry] of p.loaded) loaded.set(key, entry);
  const next = new Map<string, Loaded<unknown>>();
  const gate = options.gate;
  let result;
  try {
    gate?.enter();
    result = await store.append({
      instanceId: ctx.instanceId,
      createdAt: ctx.now,
      expectations: [...loaded.values()].map((l) => ({ aggregateType: l.kind.type, aggregateId: l.id, expectedVersion: l.version })),
      events: batch.flatMap((p) => p.decision.events),
      claims: batch.flatMap((p) => p.decision.claims ?? []),
      releases: batch.flatMap((p) => p.decision.releases ?? []),
      project: (stored) => projectRows(loaded, stored, next),
    });
  } catch {
    return false; // each runs alone and meets the cause (a deadline, a throwing projection) itself
  } finally {
    gate?.leave();
  }
  if (!result.ok) {
    if (result.reason === 'conflict') cache.delete(cacheKey(result.aggregateType, result.aggregateId));
    return false;
  }
  for (const [key, value] of next) cache.set(key, value);
  options.onAppended?.(result.events);
  const records = new Map([...loaded, ...next]);
  for (const p of batch) {
    try {
      const events = result.events.filter((e) => p.streams.has(cacheKey(e.aggregateType, e.aggregateId)));
      results[p.index] = { ok: true, value: p.decision.reply(outcomeOf(events, records)) };
    } catch (error) {
      results[p.index] = { ok: false, error };
    }
  }
  return true;
}

/**
 * The command's aggregates: cached ones, then (first attempt) minted and known ones unread, then
 * the rest read together. `fromCache` lists those not read now (cached or known): a refusal
 * decided on them is checked against their streams first.
 */
async function loadAll(
  store: StoreAdapter,
  cache: Map<string, Loaded<unknown>>,
  instanceId: string,
  refs: readonly AggregateRef[],
  first?: Pick<RunCommandOptions<unknown, unknown>, 'minted' | 'known'>,
): Promise<{ loaded: Map<string, Loaded<unknown>>; fromCache: Loaded<unknown>[] }> {
  const cached = new Map<string, Loaded<unknown>>();
  for (const ref of refs) {
    const key = cacheKey(ref.kind.type, ref.id);
    const entry = cache.get(key) ?? knownEntry(first?.known, ref);
    if (entry !== undefined) cached.set(key, entry);
  }
  const read = await readMissing(store, cache, instanceId, refs, first?.minted, cached);
  // In the order the command named them.
  const loaded = new Map<string, Loaded<unknown>>();
  for (const { kind, id } of refs) {
    const key = cacheKey(kind.type, id);
    if (!loaded.has(key)) loaded.set(key, read.get(key) ?? cached.get(key)!);
  }
  return { loaded, fromCache: [...cached.values()] };
}

/**
 * Reads the aggregates of `refs` the cache lacks, together, into the cache, and returns them by
 * key: on PostgreSQL one statement (rows and stream versions) instead of a row read and, for an
 * aggregate without a row (a new one), a version read, each a round trip. An aggregate whose id
 * is in `minted` is returned as absent (version 0) without a read and is not cached: the append
 * that creates it expects version 0, which is the check the read would have made. Those in `held`
 * (the load's cached and known ones) are skipped.
 */
async function readMissing(
  store: StoreAdapter,
  cache: Map<string, Loaded<unknown>>,
  instanceId: string,
  refs: Iterable<AggregateRef>,
  minted?: readonly string[],
  held?: ReadonlyMap<string, Loaded<unknown>>,
): Promise<Map<string, Loaded<unknown>>> {
  const missing = new Map<string, AggregateRef>();
  const read = new Map<string, Loaded<unknown>>();
  for (const ref of refs) {
    const key = cacheKey(ref.kind.type, ref.id);
    if (cache.has(key) || held?.has(key) === true) continue;
    if (minted?.includes(ref.id) === true) read.set(key, loadedOf(ref.kind, ref.id, undefined, 0));
    else missing.set(key, ref);
  }
  if (missing.size === 0) return read;
  const wanted = [...missing.values()];
  const stored = await store.readAggregates(instanceId, wanted.map(({ kind, id }) => ({ table: kind.table, aggregateType: kind.type, aggregateId: id })));
  wanted.forEach(({ kind, id }, i) => {
    const { record, version } = stored[i]!; // one answer per aggregate asked
    const entry = loadedOf(kind, id, record as AggregateRecord<unknown> | undefined, version);
    read.set(cacheKey(kind.type, id), entry);
    cache.set(cacheKey(kind.type, id), entry);
  });
  return read;
}

/** The known record of `ref`'s aggregate, as loaded (not cached: nothing has checked it yet). */
function knownEntry(known: readonly KnownRecord[] | undefined, ref: AggregateRef): Loaded<unknown> | undefined {
  const found = known?.find((k) => k.record.id === ref.id && k.kind.type === ref.kind.type);
  return found === undefined ? undefined : loadedOf(ref.kind, ref.id, found.record, found.record.meta.version);
}

/** Drops cached aggregates whose stream moved on; true when any was stale. */
async function dropStale(store: StoreAdapter, cache: Map<string, Loaded<unknown>>, instanceId: string, entries: readonly Loaded<unknown>[]): Promise<boolean> {
  let stale = false;
  for (const entry of entries) {
    if ((await store.streamVersion(instanceId, entry.kind.type, entry.id)) !== entry.version) {
      cache.delete(cacheKey(entry.kind.type, entry.id));
      stale = true;
    }
  }
  return stale;
}

/** An aggregate as loaded: the row's version when there is a row, else the stream's (a removed aggregate). */
function loadedOf(kind: AggregateKind<unknown>, id: string, record: AggregateRecord<unknown> | undefined, streamVersion: number): Loaded<unknown> {
  return { kind, id, version: record === undefined ? streamVersion : record.meta.version, record };
}

/** Runs inside the write transaction: fold each touched aggregate's events into its row. */
function projectRows(
  loaded: Map<string, Loaded<unknown>>,
  stored: readonly StoredEvent[],
  next: Map<string, Loaded<unknown>>,
): RecordWrite[] {
  const byStream = new Map<string, StoredEvent[]>();
  for (const event of stored) {
    const key = cacheKey(event.aggregateType, event.aggregateId);
    if (!loaded.has(key)) throw new ProgrammerError(`event for ${key} whose aggregate the command did not load`);
    let list = byStream.get(key);
    if (list === undefined) byStream.set(key, (list = []));
    list.push(event);
  }
  const rows: RecordWrite[] = [];
  for (const [key, events] of byStream) {
    const before = loaded.get(key)!; // checked above
    const record = foldRecord(before.kind, before.id, before.record, events);
    const version = events[events.length - 1]!.version; // non-empty by construction
    next.set(key, { kind: before.kind, id: before.id, version, record });
    rows.push({ table: before.kind.table, id: before.id, value: record ?? null });
  }
  return rows;
}

function setOf(loaded: Map<string, Loaded<unknown>>): LoadedSet {
  return {
    get<S>(kind: AggregateKind<S>, id: string): Loaded<S> {
      const entry = loaded.get(cacheKey(kind.type, id));
      if (entry === undefined) throw new ProgrammerError(`aggregate ${kind.type}:${id} was not named in load()`);
      return entry as Loaded<S>;
    },
  };
}

function outcomeOf(events: readonly StoredEvent[], records: Map<string, Loaded<unknown>>): Outcome {
  return {
    events,
    record<S>(kind: AggregateKind<S>, id: string): AggregateRecord<S> | undefined {
      return records.get(cacheKey(kind.type, id))?.record as AggregateRecord<S> | undefined;
    },
  };
}

/** The key of an aggregate in an actor's cache (the change feed evicts by it too). */
export function cacheKey(type: string, id: string): string {
  return `${type}:${id}`;
}
