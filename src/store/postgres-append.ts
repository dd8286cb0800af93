/**
 * The conditional append on PostgreSQL (design §4–§5), with group commit. The instance's
 * counter row is locked first (upsert … RETURNING), which serialises every append of that
 * instance across connections, processes and nodes (READ COMMITTED: each later statement sees
 * what the previous lock holder committed). While one transaction of an instance runs, later
 * appends of that instance queue in this process; the next transaction takes them all
 * (up to MAX_BATCH) and decides each in order against the heads and claims as the earlier ones
 * left them: one lock, two round trips and one commit (one disk flush) for the batch, where
 * each append alone would pay its own. The transaction runs on a connection reserved for it,
 * with BEGIN sent together with the first reads and COMMIT right behind the writes
 * (`transaction`). A refusal or a throwing project() answers only its own append; a batch the
 * database rejects is retried one append at a time, so one bad append never fails another.
 * Positions stay gap-free: the counter moves by what was accepted.
 * The unique (instance, stream, version) index is the second line of defence: a violation is
 * reported as a conflict. With `notice`, one pg_notify after the writes tells other nodes which
 * streams moved (postgres-change-feed.ts); PostgreSQL delivers it at COMMIT, never after a rollback.
 */
import type { ReservedSql, Sql } from 'postgres';
import type { AppendRequest, AppendResult, CommittedBatch, RecordWrite, StoredEvent, TableIndexes } from '../../actors/index.js';
import { checkExpectations, claimKey, findClaimClash, placeEvents, streamKey } from './append-rules.js';
import { changePayload, type ChangeNotice } from './postgres-change-feed.js';
import { indexChanges, indexStatements, readBeforeSummaries, toSummaryMap, type SummaryMap } from './postgres-indexes.js';
import { checkInstance, checkPart, encodeValue, inlineParams, PREPARED, Q, valuesList } from './postgres-queries.js';
import { CALL_DEADLINE_MS, isUnavailableError, withDeadline } from './postgres-unavailable.js';

/** Rows per multi-row INSERT (PostgreSQL allows 65535 parameters per statement). */
const CHUNK = 1000;
/** Appends decided in one transaction at most. */
const MAX_BATCH = 64;

class Refusal extends Error {
  constructor(readonly result: AppendResult) {
    super('append refused');
  }
}

/** What one append of a batch came to: a result (accepted or refused) or a thrown error. */
type Outcome = { readonly result: AppendResult } | { readonly error: unknown };

interface Queued {
  readonly request: AppendRequest;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** Tables with indexes (by name): their rows' index entries are written with them. */
export type IndexedTables = ReadonlyMap<string, readonly TableIndexes[]>;

/**
 * The store's append: checks, then joins its instance's queue (group commit). `onCommitted`
 * hears every batch that moved the position, after its COMMIT (the request read cache).
 */
export function createAppendQueue(sql: Sql, tables: IndexedTables, notice?: ChangeNotice, onCommitted?: (committed: CommittedBatch) => void): (request: AppendRequest) => Promise<AppendResult> {
  const queues = new Map<string, Queued[]>();

  async function drain(instanceId: string, queue: Queued[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      try {
        // A batch that never settles (a connection that never answers) must not hold the queue.
        const outcomes = await withDeadline(appendBatch(sql, tables, batch.map((q) => q.request), notice, onCommitted), CALL_DEADLINE_MS);
        outcomes.forEach((outcome, i) => ('result' in outcome ? batch[i]!.resolve(outcome.result) : batch[i]!.reject(outcome.error)));
      } catch (err) {
        for (const q of batch) q.reject(err);
      }
    }
    // Only after the last batch settled: an append arriving meanwhile joined this queue.
    queues.delete(instanceId);
  }

  return (request) => {
    try {
      checkInstance(request.instanceId);
      checkParts(request);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const queue = queues.get(request.instanceId);
      if (queue !== undefined) {
        queue.push({ request, resolve, reject });
        return;
      }
      const started: Queued[] = [{ request, resolve, reject }];
      queues.set(request.instanceId, started);
      void drain(request.instanceId, started);
    });
  };
}

/** One append on its own (no queue). */
export async function appendToPostgres(sql: Sql, request: AppendRequest, notice?: ChangeNotice, tables: IndexedTables = new Map()): Promise<AppendResult> {
  checkInstance(request.instanceId);
  checkParts(request);
  const [outcome] = await appendBatch(sql, tables, [request], notice);
  if (outcome === undefined || 'error' in outcome) throw outcome?.error;
  return outcome.result;
}

/** Appends of one instance in one transaction; on a database error, each alone (not when it is unreachable). Never rejects. */
async function appendBatch(sql: Sql, tables: IndexedTables, requests: readonly AppendRequest[], notice: ChangeNotice | undefined, onCommitted?: (committed: CommittedBatch) => void): Promise<Outcome[]> {
  try {
    const { outcomes, committed } = await transaction(sql, (tx, begun) => appendInTxn(tx, begun, tables, requests, notice));
    if (committed !== undefined) onCommitted?.(committed);
    return outcomes;
  } catch (err) {
    // The database is gone: every append of the batch fails alike, none is retried alone.
    if (isUnavailableError(err)) return requests.map(() => ({ error: err }));
    if (requests.length > 1) {
      const alone: Outcome[] = [];
      for (const request of requests) alone.push(...(await appendBatch(sql, tables, [request], notice, onCommitted)));
      return alone;
    }
    const request = requests[0]!; // one request here
    if (!isStreamVersionClash(err)) return [{ error: err }];
    try {
      return [{ result: await conflictAfterClash(sql, request) }];
    } catch (readError) {
      return [{ error: readError }];
    }
  }
}

/** Heads and holders as the batch's accepted appends leave them (seeded from the database). */
interface Overlay {
  readonly heads: Map<string, number>;
  readonly holders: Map<string, string | undefined>;
  position: number;
  createdAt: number;
}

interface SummaryRow {
  readonly table_name: string;
  readonly id: string;
  readonly scope: string;
  readonly terms: Buffer;
}

/** The indexed tables and their rows' summaries as the database held them before the batch. */
interface IndexState {
  readonly tables: IndexedTables;
  readonly before: SummaryMap;
}

interface Accepted {
  readonly request: AppendRequest;
  readonly stored: readonly StoredEvent[];
  readonly rows: readonly RecordWrite[];
}

/** What a transaction's body decided: its answer, and the writes it queued (COMMIT goes right behind them). */
interface Decided<T> {
  readonly value: T;
  readonly writes: readonly Promise<unknown>[];
}

/**
 * Runs `body` in one transaction on a connection reserved for it, in two round trips where
 * postgres.js's `begin` takes four (BEGIN alone, the body's two, COMMIT alone): BEGIN is queued
 * before the body's first statements (the server runs a connection's statements in order) and
 * `begun` is awaited with them; COMMIT is queued right behind the writes the body returns, unsent
 * ones are never awaited alone. A write that fails aborts the transaction, and PostgreSQL ends an
 * aborted transaction's COMMIT with a rollback, so nothing of it stays: that write's error is
 * thrown. A body that throws, or writes nothing, ends with ROLLBACK. The connection goes back to
 * the pool once its last statement settled, unless a statement found it lost (postgres.js has
 * then closed it; handed back, a closed connection would sit among the open ones).
 */
async function transaction<T>(sql: Sql, body: (tx: ReservedSql, begun: Promise<unknown>) => Promise<Decided<T>>): Promise<T> {
  const tx = await sql.reserve();
  let lost = false;
  let ended = false;
  try {
    const begun = tx.unsafe('BEGIN').execute();
    begun.catch(() => undefined); // observed by the body; this only keeps a body that throws first from leaving it unhandled
    const decided = await body(tx, begun);
    ended = true;
    const end = tx.unsafe<{ readonly command?: string }[]>(decided.writes.length === 0 ? 'ROLLBACK' : 'COMMIT').execute();
    const settled = await Promise.allSettled([...decided.writes, end]);
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    lost = failed.some((f) => isUnavailableError(f.reason));
    if (failed.length > 0) throw failed[0]!.reason; // the first failed write (or COMMIT)
    const tag = (await end).command;
    if (decided.writes.length > 0 && tag !== 'COMMIT') throw new Error(`the append's transaction ended with ${tag ?? 'no command tag'}, not COMMIT`);
    return decided.value;
  } catch (error) {
    if (isUnavailableError(error)) lost = true;
    if (!lost && !ended) await tx.unsafe('ROLLBACK').execute().then(() => undefined, (e: unknown) => void (lost ||= isUnavailableError(e)));
    throw error;
  } finally {
    if (!lost) tx.release();
  }
}

/**
 * BEGIN (queued by `transaction`), the lock, head, claim and summary statements are sent
 * together: the server runs a connection's statements in order, so the reads start only once the
 * counter row lock is held. postgres.js queries are lazy: `.execute()` queues each one now, in
 * this order. The writes are queued, not awaited: `transaction` sends COMMIT behind them.
 */
async function appendInTxn(
  tx: ReservedSql,
  begun: Promise<unknown>,
  tables: IndexedTables,
  requests: readonly AppendRequest[],
  notice: ChangeNotice | undefined,
): Promise<Decided<{ outcomes: Outcome[]; committed?: CommittedBatch }>> {
  const instanceId = requests[0]!.instanceId; // a batch holds one instance's appends
  const lock = tx.unsafe<{ position: string; created_at: string }[]>(Q.lockCounter, [instanceId], PREPARED).execute();
  const headKeys = [...new Map(requests.flatMap((r) => r.expectations.map((x) => [streamKey(x.aggregateType, x.aggregateId), x] as const))).values()];
  const claimKeys = [...new Map(requests.flatMap((r) => (r.claims ?? []).map((c) => [claimKey(c.scope, c.value), c] as const))).values()];
  // One statement for all heads and one for all claims of the batch (not one per stream or value).
  const heads = headKeys.length === 0 ? Promise.resolve([]) : tx.unsafe<{ aggregate_type: string; aggregate_id: string; version: number }[]>(Q.heads, [instanceId, headKeys.map((x) => x.aggregateType), headKeys.map((x) => x.aggregateId)], PREPARED).execute();
  const holders = claimKeys.length === 0 ? Promise.resolve([]) : tx.unsafe<{ scope: string; value: string; holder: string }[]>(Q.holders, [instanceId, claimKeys.map((c) => c.scope), claimKeys.map((c) => c.value)], PREPARED).execute();
  // Rows are written under their aggregates' ids: the summaries of every stream the batch may touch.
  const rowIds = tables.size === 0 ? [] : [...new Set(headKeys.map((x) => x.aggregateId))];
  const summaries: Promise<SummaryRow[]> = readBeforeSummaries(tx, instanceId, rowIds);
  const [, [counter], headRows, holderRows, summaryRows] = await Promise.all([begun, lock, heads, holders, summaries]);
  const headOf = new Map(headRows.map((r) => [streamKey(r.aggregate_type, r.aggregate_id), Number(r.version)]));
  const holderOf = new Map(holderRows.map((r) => [claimKey(r.scope, r.value), r.holder]));
  const overlay: Overlay = {
    heads: new Map(headKeys.map((x) => [streamKey(x.aggregateType, x.aggregateId), headOf.get(streamKey(x.aggregateType, x.aggregateId)) ?? 0])),
    holders: new Map(claimKeys.map((c) => [claimKey(c.scope, c.value), holderOf.get(claimKey(c.scope, c.value))])),
    position: Number(counter?.position ?? 0),
    createdAt: Number(counter?.created_at ?? 0),
  };
  const outcomes: Outcome[] = [];
  const accepted: Accepted[] = [];
  for (const request of requests) {
    try {
      const versions = checkExpectations(request, (type, id) => overlay.heads.get(streamKey(type, id)) ?? 0);
      if (!(versions instanceof Map)) throw new Refusal(versions);
      const clash = findClaimClash(request, (scope, value) => overlay.holders.get(claimKey(scope, value)));
      if (clash !== undefined) throw new Refusal(clash);
      const stored = placeEvents(request, versions, overlay.position + 1);
      const rows = request.project(stored);
      for (const row of rows) checkPart(row.table + row.id); // NUL cannot be stored: refuse this append only
      apply(overlay, request, stored);
      accepted.push({ request, stored, rows });
      outcomes.push({ result: { ok: true, events: stored } });
    } catch (err) {
      outcomes.push(err instanceof Refusal ? { result: err.result } : { error: err });
    }
  }
  if (accepted.length === 0) return { value: { outcomes }, writes: [] };
  const from = Number(counter?.position ?? 0);
  const committed: CommittedBatch = {
    instanceId,
    from,
    to: overlay.position,
    createdAt: overlay.createdAt,
    records: accepted.flatMap((a) => a.rows.map((r) => [r.table, r.id] as const)),
    claims: accepted.flatMap((a) => [...(a.request.claims ?? []), ...(a.request.releases ?? [])].map((c) => [c.scope, c.value] as const)),
  };
  const sent = writes(tx, instanceId, accepted, overlay, { tables, before: toSummaryMap(summaryRows) }, notice, committed);
  if (overlay.position === from) return { value: { outcomes }, writes: sent };
  return { value: { outcomes, committed }, writes: sent };
}

/** An accepted append moves the batch's view: stream heads, claims, releases, the counter. */
function apply(overlay: Overlay, request: AppendRequest, stored: readonly StoredEvent[]): void {
  for (const e of stored) overlay.heads.set(streamKey(e.aggregateType, e.aggregateId), e.version);
  for (const r of request.releases ?? []) overlay.holders.set(claimKey(r.scope, r.value), undefined);
  for (const c of request.claims ?? []) overlay.holders.set(claimKey(c.scope, c.value), c.holder);
  if (stored.length > 0) {
    overlay.position = stored[stored.length - 1]!.position;
    overlay.createdAt = request.createdAt;
  }
}


/** NUL cannot be stored in text: refuse before anything is sent. */
function checkParts(request: AppendRequest): void {
  for (const x of request.expectations) checkPart(x.aggregateType + x.aggregateId);
  for (const c of request.claims ?? []) checkPart(c.scope + c.value + c.holder);
  for (const r of request.releases ?? []) checkPart(r.scope + r.value);
}

type Param = string | number | Buffer | string[];
/** Text, parameters, and whether to keep it as a prepared statement (fixed texts only). */
type Statement = readonly [string, Param[], boolean];

/**
 * Every write statement of the batch, built (validated, encoded) before the first is sent, then
 * queued at once: postgres.js pipelines them on the transaction's connection. Heads, claims and
 * rows are written as the last accepted append left them (so each key appears once and the
 * order of statements does not matter). Nothing can throw between sends, so no result is left
 * unobserved.
 */
function writes(tx: ReservedSql, instanceId: string, accepted: readonly Accepted[], overlay: Overlay, indexes: IndexState, notice: ChangeNotice | undefined, committed: CommittedBatch): Promise<unknown>[] {
  const statements: Statement[] = [];
  const insert = (head: string, width: number, tuples: Param[][], tail = '') => {
    for (let i = 0; i < tuples.length; i += CHUNK) {
      const chunk = tuples.slice(i, i + CHUNK);
      // One text per row count: not worth a server-side prepared statement each.
      statements.push([`${head} VALUES ${valuesList(chunk.length, width)} ${tail}`, chunk.flat(), false]);
    }
  };
  const stored = accepted.flatMap((a) => a.stored);
  insert(
    'INSERT INTO events (instance_id, position, aggregate_type, aggregate_id, version, type, owner_type, owner_id, creator, created_at, payload)',
    11,
    stored.map((e) => [instanceId, e.position, e.aggregateType, e.aggregateId, e.version, e.type, e.owner.type, e.owner.id, e.creator, e.createdAt, encodeValue(e.payload)]),
  );
  const heads = new Map(stored.map((e) => [streamKey(e.aggregateType, e.aggregateId), [instanceId, e.aggregateType, e.aggregateId, e.version] as Param[]]));
  insert('INSERT INTO stream_heads (instance_id, aggregate_type, aggregate_id, version)', 4, [...heads.values()], 'ON CONFLICT (instance_id, aggregate_type, aggregate_id) DO UPDATE SET version = excluded.version');
  const touched = new Map<string, readonly [string, string]>();
  for (const { request } of accepted) {
    for (const r of request.releases ?? []) touched.set(claimKey(r.scope, r.value), [r.scope, r.value]);
    for (const c of request.claims ?? []) touched.set(claimKey(c.scope, c.value), [c.scope, c.value]);
  }
  const claims: Param[][] = [];
  for (const [key, [scope, value]] of touched) {
    const holder = overlay.holders.get(key);
    if (holder === undefined) statements.push([Q.releaseUnique, [instanceId, scope, value], true]);
    else claims.push([instanceId, scope, value, holder]);
  }
  insert('INSERT INTO unique_claims (instance_id, scope, value, holder)', 4, claims, 'ON CONFLICT (instance_id, scope, value) DO UPDATE SET holder = excluded.holder');
  const latest = new Map<string, RecordWrite>();
  for (const { rows } of accepted) for (const row of rows) latest.set(`${row.table}\u0000${row.id}`, row);
  const puts: Param[][] = [];
  for (const row of latest.values()) {
    if (row.value === null || row.value === undefined) statements.push([Q.deleteRecord, [instanceId, row.table, row.id], true]);
    else puts.push([instanceId, row.table, row.id, encodeValue(row.value)]);
  }
  insert('INSERT INTO records (instance_id, table_name, id, value)', 4, puts, 'ON CONFLICT (instance_id, table_name, id) DO UPDATE SET value = excluded.value');
  for (const [text, params] of indexStatements(instanceId, indexChanges(indexes.tables, indexes.before, latest.values()), valuesList, CHUNK)) {
    statements.push([text, params as Param[], false]);
  }
  if (stored.length > 0) {
    statements.push([Q.setCounter, [instanceId, overlay.position, overlay.createdAt], true]);
    if (notice !== undefined) statements.push(['SELECT pg_notify($1, $2)', [notice.channel, changePayload(notice.nodeId, instanceId, stored, committed)], true]);
  }
  const combined = combine(statements);
  if (combined !== undefined) return [sendUnnamed(tx, combined[0], combined[1])];
  return statements.map(([text, params, prepare]) => (prepare ? tx.unsafe(text, params, PREPARED).execute() : sendUnnamed(tx, text, params)));
}

/**
 * Sends a statement of a text made for this batch in one round trip, pipelined with the ones
 * around it: its parameters written into the text as literals (inlineParams). A value no literal
 * can carry (a string with NUL, a number that is not a safe integer) is bound instead, and the
 * server refuses or stores it as it would have (two round trips).
 */
function sendUnnamed(tx: ReservedSql, text: string, params: Param[]): Promise<unknown> {
  let inlined: string;
  try {
    inlined = inlineParams(text, params);
  } catch {
    return tx.unsafe(text, params).execute();
  }
  return tx.unsafe(inlined, [], { prepare: false }).execute();
}

/** Parameters one combined statement may carry (PostgreSQL allows 65535). */
const MAX_COMBINED_PARAMS = 30_000;

/**
 * The batch's writes as one statement (data-modifying WITH queries, the last statement as the
 * main query), so the server runs one statement instead of one per table. Each statement writes
 * other rows than the others (each key once: indexChanges, the latest row per key, one claim per
 * value), which is what running them in one snapshot requires. Undefined when the parameters
 * would be too many: the statements then go one by one.
 */
export function combine(statements: readonly Statement[]): [string, Param[]] | undefined {
  if (statements.length < 2) return undefined;
  const params: Param[] = [];
  const parts: string[] = [];
  for (const [text, own] of statements) {
    const offset = params.length;
    if (offset + own.length > MAX_COMBINED_PARAMS) return undefined;
    parts.push(offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`));
    params.push(...own);
  }
  const last = parts.pop()!;
  return [`WITH ${parts.map((part, i) => `w${i} AS (${part})`).join(', ')} ${last}`, params];
}

function isStreamVersionClash(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint_name: constraint } = err as { code?: unknown; constraint_name?: unknown };
  return code === '23505' && (constraint === 'events_stream_version' || constraint === 'stream_heads_pkey');
}

/** Only reachable if something wrote a stream without taking the instance lock. */
async function conflictAfterClash(sql: Sql, request: AppendRequest): Promise<AppendResult> {
  for (const x of request.expectations) {
    const [head] = await sql.unsafe<{ version: number }[]>(Q.head, [request.instanceId, x.aggregateType, x.aggregateId], PREPARED);
    const actual = Number(head?.version ?? 0);
    if (actual !== x.expectedVersion) {
      return { ok: false, reason: 'conflict', aggregateType: x.aggregateType, aggregateId: x.aggregateId, actualVersion: actual };
    }
  }
  const first = request.expectations[0];
  return { ok: false, reason: 'conflict', aggregateType: first?.aggregateType ?? '', aggregateId: first?.aggregateId ?? '', actualVersion: first?.expectedVersion ?? 0 };
}
