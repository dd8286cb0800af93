/**
 * One command, start to reply: load the named aggregates (cache first), decide, append
 * conditionally on the loaded versions, fold the stored events into the rows inside the
 * write transaction, update the cache, reply. A lost conditional append reloads and retries.
 */
import { aborted, type AppError, isAppError, ProgrammerError } from '../kernel/errors.js';
import { foldRecord, type AggregateKind, type AggregateRecord, type Loaded } from '../kernel/aggregate.js';
import type { AggregateRef, CommandContext, CommandHandler, LoadedSet, Outcome } from '../kernel/command.js';
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
    const { loaded, fromCache } = await loadAll(store, cache, ctx.instanceId, refs);
    let decision;
    try {
      decision = handler.decide(setOf(loaded), command, ctx);
    } catch (error) {
      // A refusal based on a cached aggregate another actor (or node) has since changed would
      // be wrong: drop stale entries and decide again. Decisions with events need no such
      // check, because their append is conditional on the versions read.
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

async function loadAll(
  store: StoreAdapter,
  cache: Map<string, Loaded<unknown>>,
  instanceId: string,
  refs: readonly AggregateRef[],
): Promise<{ loaded: Map<string, Loaded<unknown>>; fromCache: Loaded<unknown>[] }> {
  const loaded = new Map<string, Loaded<unknown>>();
  const fromCache: Loaded<unknown>[] = [];
  for (const { kind, id } of refs) {
    const key = cacheKey(kind.type, id);
    if (loaded.has(key)) continue;
    let entry = cache.get(key);
    if (entry === undefined) {
      entry = await loadOne(store, instanceId, kind, id);
      cache.set(key, entry);
    } else {
      fromCache.push(entry);
    }
    loaded.set(key, entry);
  }
  return { loaded, fromCache };
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

async function loadOne(store: StoreAdapter, instanceId: string, kind: AggregateKind<unknown>, id: string): Promise<Loaded<unknown>> {
  const record = (await store.getRecord(instanceId, kind.table, id)) as AggregateRecord<unknown> | undefined;
  const version = record === undefined ? await store.streamVersion(instanceId, kind.type, id) : record.meta.version;
  return { kind, id, version, record };
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
