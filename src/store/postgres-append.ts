/**
 * The conditional append on PostgreSQL (design §4–§5). The first statement upserts the
 * instance's counter row, whose row lock serialises every append of that instance across
 * connections, processes and nodes (READ COMMITTED: each later statement sees what the
 * previous lock holder committed). Heads and claims are then checked, positions assigned,
 * project() run, and events, heads, claims and rows written in the same transaction.
 * A refusal or a throw rolls everything back. The unique (instance, stream, version) index
 * is the second line of defence: a violation is reported as a conflict too.
 * With `notice`, a pg_notify after the writes tells other nodes which streams moved
 * (postgres-change-feed.ts); PostgreSQL delivers it at COMMIT, and never after a rollback.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { AppendRequest, AppendResult, NewEvent, RecordWrite, StoredEvent } from '../../actors/index.js';
import { changePayload, type ChangeNotice } from './postgres-change-feed.js';
import { checkInstance, checkPart, encodeValue, Q, valuesList } from './postgres-queries.js';

/** Rows per multi-row INSERT (PostgreSQL allows 65535 parameters per statement). */
const CHUNK = 1000;
const SEP = '\u0000';

class Refusal extends Error {
  constructor(readonly result: AppendResult) {
    super('append refused');
  }
}

export async function appendToPostgres(sql: Sql, request: AppendRequest, notice?: ChangeNotice): Promise<AppendResult> {
  checkInstance(request.instanceId);
  checkParts(request);
  try {
    return await sql.begin((tx) => appendInTxn(tx, request, notice));
  } catch (err) {
    if (err instanceof Refusal) return err.result;
    if (isStreamVersionClash(err)) return conflictAfterClash(sql, request);
    throw err;
  }
}

/**
 * The lock, head and claim statements are sent together: the server runs a connection's
 * statements in order, so the reads start only once the counter row lock is held.
 * postgres.js queries are lazy: `.execute()` queues each one now, in this order.
 */
async function appendInTxn(tx: TransactionSql, request: AppendRequest, notice: ChangeNotice | undefined): Promise<AppendResult> {
  const { instanceId, createdAt, events } = request;
  const n = events.length;
  const bump = tx.unsafe<{ position: string }[]>(Q.bumpCounter, [instanceId, n, n > 0 ? createdAt : 0]).execute();
  const heads = Promise.all(
    request.expectations.map((x) => tx.unsafe<{ version: number }[]>(Q.head, [instanceId, x.aggregateType, x.aggregateId]).execute()),
  );
  const holders = Promise.all(
    (request.claims ?? []).map((c) => tx.unsafe<{ holder: string }[]>(Q.findUnique, [instanceId, c.scope, c.value]).execute()),
  );
  const [[counter], headRows, holderRows] = await Promise.all([bump, heads, holders]);
  const versions = checkHeads(request, headRows.map((rows) => Number(rows[0]?.version ?? 0)));
  checkClaims(request, holderRows.map((rows) => rows[0]?.holder));
  const stored = assignPlaces(request, versions, Number(counter?.position ?? 0) - n + 1);
  const rows = request.project(stored);
  await Promise.all(writes(tx, request, stored, rows, notice));
  return { ok: true, events: stored };
}

/** NUL cannot be stored in text: refuse before anything is sent. */
function checkParts(request: AppendRequest): void {
  for (const x of request.expectations) checkPart(x.aggregateType + x.aggregateId);
  for (const c of request.claims ?? []) checkPart(c.scope + c.value + c.holder);
  for (const r of request.releases ?? []) checkPart(r.scope + r.value);
}

function checkHeads(request: AppendRequest, actuals: readonly number[]): Map<string, number> {
  const versions = new Map<string, number>();
  request.expectations.forEach((x, i) => {
    const actual = actuals[i] ?? 0;
    if (actual !== x.expectedVersion) {
      throw new Refusal({ ok: false, reason: 'conflict', aggregateType: x.aggregateType, aggregateId: x.aggregateId, actualVersion: actual });
    }
    versions.set(x.aggregateType + SEP + x.aggregateId, actual);
  });
  return versions;
}

function checkClaims(request: AppendRequest, found: readonly (string | undefined)[]): void {
  const released = new Set((request.releases ?? []).map((r) => r.scope + SEP + r.value));
  const pending = new Map<string, string>();
  (request.claims ?? []).forEach(({ scope, value, holder }, i) => {
    const id = scope + SEP + value;
    const current = pending.get(id) ?? (released.has(id) ? undefined : found[i]);
    if (current !== undefined && current !== holder) throw new Refusal({ ok: false, reason: 'unique', scope, value, holder: current });
    pending.set(id, holder);
  });
}

function assignPlaces(request: AppendRequest, versions: Map<string, number>, first: number): StoredEvent[] {
  let position = first - 1;
  return request.events.map((event: NewEvent) => {
    const stream = event.aggregateType + SEP + event.aggregateId;
    const previous = versions.get(stream);
    if (previous === undefined) {
      throw new Error(`append: no expectation for stream ${event.aggregateType}/${event.aggregateId}`);
    }
    versions.set(stream, previous + 1);
    position += 1;
    const { aggregateType, aggregateId, type, owner, creator, payload } = event;
    const { instanceId, createdAt } = request;
    return { instanceId, aggregateType, aggregateId, type, owner, creator, payload, version: previous + 1, position, createdAt };
  });
}

type Param = string | number | Buffer;
/** Text, parameters, and whether to keep it as a prepared statement (fixed texts only). */
type Statement = readonly [string, Param[], boolean];

/**
 * Every write statement, built (validated, encoded) before the first is sent, then queued at
 * once: postgres.js pipelines them on the transaction's connection and the server runs them
 * in order (releases before claims). Nothing can throw between sends, so no result is left
 * unobserved.
 */
function writes(
  tx: TransactionSql,
  request: AppendRequest,
  stored: readonly StoredEvent[],
  rows: readonly RecordWrite[],
  notice: ChangeNotice | undefined,
): Promise<unknown>[] {
  const { instanceId } = request;
  const statements: Statement[] = [];
  const insert = (head: string, width: number, tuples: Param[][], tail = '') => {
    for (let i = 0; i < tuples.length; i += CHUNK) {
      const chunk = tuples.slice(i, i + CHUNK);
      // One text per row count: not worth a server-side prepared statement each.
      statements.push([`${head} VALUES ${valuesList(chunk.length, width)} ${tail}`, chunk.flat(), false]);
    }
  };
  insert(
    'INSERT INTO events (instance_id, position, aggregate_type, aggregate_id, version, type, owner_type, owner_id, creator, created_at, payload)',
    11,
    stored.map((e) => [instanceId, e.position, e.aggregateType, e.aggregateId, e.version, e.type, e.owner.type, e.owner.id, e.creator, e.createdAt, encodeValue(e.payload)]),
  );
  const heads = new Map(stored.map((e) => [e.aggregateType + SEP + e.aggregateId, [instanceId, e.aggregateType, e.aggregateId, e.version] as Param[]]));
  insert('INSERT INTO stream_heads (instance_id, aggregate_type, aggregate_id, version)', 4, [...heads.values()], 'ON CONFLICT (instance_id, aggregate_type, aggregate_id) DO UPDATE SET version = excluded.version');
  for (const r of request.releases ?? []) statements.push([Q.releaseUnique, [instanceId, r.scope, r.value], true]);
  const claims = new Map((request.claims ?? []).map((c) => [c.scope + SEP + c.value, [instanceId, c.scope, c.value, c.holder] as Param[]]));
  insert('INSERT INTO unique_claims (instance_id, scope, value, holder)', 4, [...claims.values()], 'ON CONFLICT (instance_id, scope, value) DO UPDATE SET holder = excluded.holder');
  const latest = new Map<string, RecordWrite>();
  for (const row of rows) latest.set(checkPart(row.table) + SEP + checkPart(row.id), row);
  const puts: Param[][] = [];
  for (const row of latest.values()) {
    if (row.value === null || row.value === undefined) statements.push([Q.deleteRecord, [instanceId, row.table, row.id], true]);
    else puts.push([instanceId, row.table, row.id, encodeValue(row.value)]);
  }
  insert('INSERT INTO records (instance_id, table_name, id, value)', 4, puts, 'ON CONFLICT (instance_id, table_name, id) DO UPDATE SET value = excluded.value');
  if (notice !== undefined && stored.length > 0) statements.push(['SELECT pg_notify($1, $2)', [notice.channel, changePayload(notice.nodeId, instanceId, stored)], true]);
  return statements.map(([text, params, prepare]) => tx.unsafe(text, params, { prepare }).execute());
}

function isStreamVersionClash(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint_name: constraint } = err as { code?: unknown; constraint_name?: unknown };
  return code === '23505' && (constraint === 'events_stream_version' || constraint === 'stream_heads_pkey');
}

/** Only reachable if something wrote a stream without taking the instance lock. */
async function conflictAfterClash(sql: Sql, request: AppendRequest): Promise<AppendResult> {
  for (const x of request.expectations) {
    const [head] = await sql.unsafe<{ version: number }[]>(Q.head, [request.instanceId, x.aggregateType, x.aggregateId]);
    const actual = Number(head?.version ?? 0);
    if (actual !== x.expectedVersion) {
      return { ok: false, reason: 'conflict', aggregateType: x.aggregateType, aggregateId: x.aggregateId, actualVersion: actual };
    }
  }
  const first = request.expectations[0];
  return { ok: false, reason: 'conflict', aggregateType: first?.aggregateType ?? '', aggregateId: first?.aggregateId ?? '', actualVersion: first?.expectedVersion ?? 0 };
}
