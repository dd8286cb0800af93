/**
 * The change feed between nodes sharing one PostgreSQL schema (issue 7). Every append sends
 * `pg_notify(channel, payload)` in its transaction (postgres-append.ts): node id, instance,
 * position range and the streams it moved. Each node LISTENs on a dedicated connection,
 * ignores its own appends, and tells its subscribers what other nodes changed. NOTIFY is
 * lost while the LISTEN connection is down, so on every (re)listen, on a gap in an
 * instance's positions and on a slow timer the feed catches up by reading the events after
 * the last position it saw. docs/operations/postgres.md ("Change feed") describes it.
 */
import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import type { ChangedStream, ChangeFeed, CommittedBatch, Logger, StoreAdapter, StoreChange, StoredEvent } from '../../actors/index.js';

/** Where an append announces itself, and as which node. */
export interface ChangeNotice {
  readonly channel: string;
  readonly nodeId: string;
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; above this only the range is sent. */
const MAX_PAYLOAD_BYTES = 7_500;

/** One channel per schema, so test schemas (or tenants of one database) never hear each other. */
export function changeChannel(schema: string): string {
  return `tessera_changes_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/** The schema appends write to (`current_schema()`), for `changeChannel`. */
export async function currentSchema(sql: Sql): Promise<string> {
  const [row] = await sql.unsafe<{ schema: string | null }[]>('SELECT current_schema() AS schema');
  return row?.schema ?? 'public';
}

/**
 * `{n, i, f, l, t?, s?, c?, r?, u?}`: node, instance, first and last position, epoch ms when sent
 * (commit), `[type, id, version]` per stream; and, when they fit, the batch as the request read
 * cache needs it (postgres-read-cache.ts `advance`): the instance's `created_at` it left, every
 * `[table, id]` row and every `[scope, value]` claim it wrote.
 */
interface Payload {
  readonly t?: number;
  readonly n: string;
  readonly i: string;
  readonly f: number;
  readonly l: number;
  readonly s?: readonly (readonly [string, string, number])[];
  readonly c?: number;
  readonly r?: readonly (readonly [string, string])[];
  readonly u?: readonly (readonly [string, string])[];
}

/** The notification of an append batch: everything when it fits, else without the batch's rows and claims, else the range alone. */
export function changePayload(nodeId: string, instanceId: string, stored: readonly StoredEvent[], batch?: CommittedBatch): string {
  const streams = streamsOf(stored).map((s) => [s.aggregateType, s.aggregateId, s.version] as const);
  const range = { n: nodeId, i: instanceId, f: stored[0]?.position ?? 0, l: stored[stored.length - 1]?.position ?? 0, t: Date.now() };
  if (batch !== undefined) {
    const complete = JSON.stringify({ ...range, s: streams, c: batch.createdAt, r: batch.records, u: batch.claims });
    if (Buffer.byteLength(complete) <= MAX_PAYLOAD_BYTES) return complete;
  }
  const full = JSON.stringify({ ...range, s: streams });
  return Buffer.byteLength(full) <= MAX_PAYLOAD_BYTES ? full : JSON.stringify(range);
}

function parsePayload(text: string): Payload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Record<string, unknown>;
  if (typeof p.n !== 'string' || typeof p.i !== 'string' || typeof p.f !== 'number' || typeof p.l !== 'number') return undefined;
  const s = Array.isArray(p.s) && p.s.every(isStreamTuple) ? (p.s as Payload['s']) : undefined;
  const batch = typeof p.c === 'number' && Array.isArray(p.r) && p.r.every(isPair) && Array.isArray(p.u) && p.u.every(isPair) ? { c: p.c, r: p.r as Payload['r'], u: p.u as Payload['u'] } : {};
  return { n: p.n, i: p.i, f: p.f, l: p.l, ...(typeof p.t === 'number' ? { t: p.t } : {}), ...(s === undefined ? {} : { s }), ...batch };
}

function isPair(t: unknown): boolean {
  return Array.isArray(t) && t.length === 2 && typeof t[0] === 'string' && typeof t[1] === 'string';
}

function isStreamTuple(t: unknown): boolean {
  return Array.isArray(t) && t.length === 3 && typeof t[0] === 'string' && typeof t[1] === 'string' && typeof t[2] === 'number';
}

/** Each stream once, at the highest version the events reach. */
function streamsOf(events: readonly StoredEvent[]): ChangedStream[] {
  const latest = new Map<string, ChangedStream>();
  for (const e of events) latest.set(`${e.aggregateType}\u0000${e.aggregateId}`, { aggregateType: e.aggregateType, aggregateId: e.aggregateId, version: e.version });
  return [...latest.values()];
}

export interface PostgresChangeFeedOptions {
  readonly sql: Sql;
  readonly notice: ChangeNotice;
  readonly readEvents: StoreAdapter['readEvents'];
  readonly logger?: Logger;
  /** How often positions are compared with what the feed saw (lost notifications); default 5 s. */
  readonly recheckMs?: number;
  /** A catch-up longer than this reports "the instance changed" instead of reading the events. */
  readonly maxCatchUpEvents?: number;
  /** Hears another node's batch whose notification carried its rows and claims (the request read cache). */
  readonly onBatch?: (batch: CommittedBatch) => void;
}

export interface PostgresChangeFeed extends ChangeFeed {
  /** Stops listening (the store's close calls it before ending the pool). */
  close(): Promise<void>;
}

export function createPostgresChangeFeed(options: PostgresChangeFeedOptions): PostgresChangeFeed {
  const { sql, notice, logger } = options;
  const maxCatchUp = options.maxCatchUpEvents ?? 1_000;
  const listeners = new Set<(change: StoreChange) => void>();
  /** Last position handled per instance (own appends included). */
  const seen = new Map<string, number>();
  let started: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Notifications and catch-ups run one at a time, so each instance is reported in order. */
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>) => {
    chain = chain.then(work).catch((err: unknown) => logger?.warn({ err }, 'change feed: catch-up failed; retrying on the next check'));
  };

  const emit = (change: StoreChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (err) {
        logger?.error({ err, instanceId: change.instanceId }, 'change feed listener failed');
      }
    }
  };

  /** Reports positions after..upTo of an instance, read from the log (or as "changed" when long). */
  const catchUp = async (instanceId: string, after: number, upTo: number): Promise<void> => {
    if (upTo <= after) return;
    if (upTo - after > maxCatchUp) {
      emit({ instanceId, fromPosition: after + 1, toPosition: upTo });
    } else {
      const events = await options.readEvents(instanceId, after, upTo - after);
      const last = events[events.length - 1];
      if (last !== undefined) emit({ instanceId, fromPosition: after + 1, toPosition: upTo, streams: streamsOf(events), committedAt: last.createdAt });
    }
    seen.set(instanceId, Math.max(seen.get(instanceId) ?? 0, upTo));
  };

  const positions = async (): Promise<Map<string, number>> => {
    const rows = await sql.unsafe<{ instance_id: string; position: string }[]>('SELECT instance_id, position FROM instance_positions');
    return new Map(rows.map((r) => [r.instance_id, Number(r.position)]));
  };

  const catchUpAll = async (): Promise<void> => {
    for (const [instanceId, position] of await positions()) await catchUp(instanceId, seen.get(instanceId) ?? 0, position);
  };

  const onNotify = (text: string) => {
    const p = parsePayload(text);
    if (p === undefined) return logger?.warn({}, 'change feed: ignored a malformed notification');
    enqueue(async () => {
      const last = seen.get(p.i) ?? 0;
      if (p.l <= last) return; // already caught up past it
      if (p.f > last + 1) await catchUp(p.i, last, p.f - 1); // notifications were lost
      seen.set(p.i, p.l);
      if (p.n === notice.nodeId) return;
      if (p.c !== undefined && p.r !== undefined && p.u !== undefined) options.onBatch?.({ instanceId: p.i, from: p.f - 1, to: p.l, createdAt: p.c, records: p.r, claims: p.u });
      const from = Math.max(p.f, last + 1);
      if (p.s !== undefined) {
        const streams = p.s.map(([aggregateType, aggregateId, version]) => ({ aggregateType, aggregateId, version }));
        emit({ instanceId: p.i, fromPosition: from, toPosition: p.l, streams, ...(p.t === undefined ? {} : { committedAt: p.t }) });
      } else {
        seen.set(p.i, from - 1);
        await catchUp(p.i, from - 1, p.l);
      }
    });
  };

  const start = async (): Promise<void> => {
    // Baseline: what is in the store now is what this node reads fresh anyway.
    for (const [instanceId, position] of await positions()) seen.set(instanceId, position);
    // onlisten runs after the first LISTEN and after every reconnect: catch up what was missed.
    const listening = await sql.listen(notice.channel, onNotify, () => enqueue(catchUpAll));
    unlisten = listening.unlisten;
    timer = setInterval(() => enqueue(catchUpAll), options.recheckMs ?? 5_000);
    timer.unref();
  };

  return {
    async subscribe(listener) {
      if (closed) throw new Error('change feed: the store is closed');
      listeners.add(listener);
      started ??= start();
      await started;
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      closed = true;
      clearInterval(timer);
      listeners.clear();
      await started?.catch(() => undefined);
      await unlisten?.().catch(() => undefined);
      await chain;
    },
  };
}
