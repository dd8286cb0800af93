/**
 * Rate-limit counts shared through PostgreSQL (src/http/rate-limits-postgres.ts), two "nodes"
 * (two counter sets, two pools) on one fresh schema: a volume limit decides on the cluster total
 * once a sync sent the other node's counts, with a positive control (another key passes and, before
 * the sync, the counts are still local); a failure-driven limit is exact at every event; counts of
 * different scopes (node default, an instance) never mix; keys with NUL are stored; a client block
 * published by one node reaches the other. A sync whose statement hangs (a second connection
 * holds an ACCESS EXCLUSIVE lock on the table) is given up after its bound (100 ms here), the
 * statement cancelled, one warning logged for the whole outage; once the lock is released the
 * next sync sends the kept counts exactly once (control: a sync before the lock writes). Skipped, with
 * the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import type { Sql } from 'postgres';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresCounters, SyncTimeoutError, type PostgresCounters } from '../../src/http/rate-limits-postgres.js';
import { connectPostgres, migratePostgres } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';

const postgresVerdict = await meet(POSTGRES);
const url = TEST_DATABASE_URL ?? '';
const HOUR = { points: 5, windowMs: 3_600_000 };

/** 'ok' when the counter let the event through, 'refused' past the limit. */
async function outcome(consume: Promise<RateLimiterRes>): Promise<'ok' | 'refused'> {
  try {
    await consume;
    return 'ok';
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return 'refused';
    throw rejection;
  }
}

describeIfMet(postgresVerdict, 'rate-limit counts in PostgreSQL', () => {
  const schema = freshSchemaName();
  const pools: Sql[] = [];
  let one: PostgresCounters;
  let two: PostgresCounters;

  beforeAll(async () => {
    await migratePostgres({ url, schema });
    const pool = () => {
      const sql = connectPostgres({ url, schema, maxConnections: 2 });
      pools.push(sql);
      return sql;
    };
    // A sync interval far beyond the test: only explicit sync() calls send counts.
    one = createPostgresCounters(pool(), { syncMs: 3_600_000 });
    two = createPostgresCounters(pool(), { syncMs: 3_600_000 });
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await Promise.all(pools.map((sql) => sql.end({ timeout: 5 })));
    await dropSchema(schema);
  });

  it('decides a volume limit on the cluster total once the other node synced', async () => {
    const onOne = one.counters('apiCaller', HOUR, 'i1');
    const onTwo = two.counters('apiCaller', HOUR, 'i1');
    for (let i = 0; i < 3; i += 1) expect(await outcome(onOne.consume('i1\u0000caller'))).toBe('ok');
    await one.sync();
    expect(await outcome(onTwo.consume('i1\u0000caller'))).toBe('ok'); // 4th in the cluster
    expect(await outcome(onTwo.consume('i1\u0000caller'))).toBe('ok'); // 5th
    const refused = onTwo.consume('i1\u0000caller');
    await expect(refused).rejects.toBeInstanceOf(RateLimiterRes);
    const res = (await refused.catch((r: unknown) => r)) as RateLimiterRes;
    expect(res.msBeforeNext).toBeGreaterThan(0);
    expect(res.msBeforeNext).toBeLessThanOrEqual(HOUR.windowMs);
    // positive control: another key of the same limit passes on both nodes
    expect(await outcome(onTwo.consume('i1\u0000other'))).toBe('ok');
    expect(await outcome(onOne.consume('i1\u0000other'))).toBe('ok');
  });

  it('counts on each node alone until a sync sends the counts (the approximation window)', async () => {
    const onOne = one.counters('client', HOUR, 'i2');
    const onTwo = two.counters('client', HOUR, 'i2');
    for (let i = 0; i < 5; i += 1) expect(await outcome(onOne.consume('c'))).toBe('ok');
    expect(await outcome(onOne.consume('c'))).toBe('refused'); // node one knows its own 5
    // Node two read the row before node one synced: it still sees 0 of its own window.
    expect(await outcome(onTwo.consume('c'))).toBe('ok');
    await one.sync();
    await two.sync();
    // After both synced, node two's total includes node one's counts.
    expect(await outcome(onTwo.consume('c'))).toBe('refused');
  });

  it('counts a failure-driven limit in PostgreSQL at every event: exact across nodes', async () => {
    const rate = { points: 3, windowMs: 3_600_000 };
    const onOne = one.counters('clientAuthFailures', rate, 'i3');
    const onTwo = two.counters('clientAuthFailures', rate, 'i3');
    expect((await onOne.consume('i3\u0000client')).remainingPoints).toBe(2);
    expect((await onTwo.consume('i3\u0000client')).remainingPoints).toBe(1);
    expect((await onOne.consume('i3\u0000client')).remainingPoints).toBe(0);
    expect(await outcome(onTwo.consume('i3\u0000client'))).toBe('refused');
    expect((await onTwo.consume('i3\u0000another')).remainingPoints).toBe(2); // positive control
  });

  it('shares a client block: published on one node, read by the other with its next sync', async () => {
    const learned: [string, number][] = [];
    two.blocks.subscribe((key, until) => learned.push([key, until]));
    await two.sync();
    expect(learned).toEqual([]); // positive control: nothing published yet
    const until = Date.now() + 60_000;
    await one.blocks.publish('i5\u0000client|with-bar', until);
    await two.sync();
    expect(learned).toEqual([['i5\u0000client|with-bar', until]]);
  });

  it('keeps the counts of different scopes and rates apart', async () => {
    const node = one.counters('apiCaller', { points: 1, windowMs: 3_600_000 }, 'node');
    const instance = one.counters('apiCaller', { points: 1, windowMs: 3_600_000 }, 'i4');
    expect(await outcome(node.consume('k'))).toBe('ok');
    expect(await outcome(node.consume('k'))).toBe('refused');
    expect(await outcome(instance.consume('k'))).toBe('ok');
  });
});

describeIfMet(postgresVerdict, 'a rate-limit sync that hangs', () => {
  const schema = freshSchemaName();
  const SYNC_TIMEOUT_MS = 100;
  let sql: Sql;
  let other: Sql;
  let counters: PostgresCounters;
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];

  beforeAll(async () => {
    await migratePostgres({ url, schema });
    sql = connectPostgres({ url, schema, maxConnections: 2 });
    other = connectPostgres({ url, schema, maxConnections: 2 });
    const logger = { warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }) };
    // Only explicit sync() calls send counts; each statement is bounded at SYNC_TIMEOUT_MS.
    counters = createPostgresCounters(sql, { syncMs: 3_600_000, syncTimeoutMs: SYNC_TIMEOUT_MS, logger: logger as never });
  });
  afterAll(async () => {
    await counters?.close();
    await Promise.all([sql?.end({ timeout: 5 }), other?.end({ timeout: 5 })]);
    await dropSchema(schema);
  });

  const pointsOf = async (key: string): Promise<number | undefined> => {
    const [row] = await other.unsafe<{ points: string }[]>('SELECT points FROM rate_limit_counts WHERE key = $1', [key]);
    return row === undefined ? undefined : Number(row.points);
  };
  /** Sessions waiting for a lock on the table (the hung sync statements not yet cancelled). */
  const waitingForTable = async (): Promise<number> => {
    const [row] = await other.unsafe<{ n: string }[]>(`SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation = 'rate_limit_counts'::regclass`);
    return Number(row!.n);
  };

  it('gives the hung statement up after its bound, logs the outage once and sends the kept counts once the table is free', async () => {
    const limit = counters.counters('apiCaller', HOUR, 'h1');
    const rowKey = `h1:apiCaller:${HOUR.points}/${HOUR.windowMs}:caller`;
    // Positive control: a normal sync writes the count.
    await limit.consume('caller');
    await counters.sync();
    expect(await pointsOf(rowKey)).toBe(1);
    expect(warnings).toEqual([]);

    // A second connection holds the lock every statement on the table needs, in an open transaction.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = other.begin(async (tx) => {
      await tx.unsafe('LOCK TABLE rate_limit_counts IN ACCESS EXCLUSIVE MODE');
      locked();
      await released;
    });
    await isLocked;

    await limit.consume('caller');
    await limit.consume('caller');
    // A key's first read is bounded too: the request is decided on this node's count.
    expect(await outcome(limit.consume('new-caller'))).toBe('ok');
    // Both syncs end (without the bound the first would wait for the lock forever, the second behind it).
    await counters.sync();
    await counters.sync();
    expect(warnings).toHaveLength(1); // once per outage, not once per sync
    expect(warnings[0]!.fields.err).toBeInstanceOf(SyncTimeoutError);
    expect(warnings[0]!.message).toMatch(/unreachable/);
    // The cancel reached PostgreSQL: no statement of the syncs still waits for the lock (so none
    // commits its deltas after the release).
    for (let waiting = await waitingForTable(); waiting > 0; waiting = await waitingForTable()) await new Promise((resolve) => setTimeout(resolve, 20));

    release();
    await holder;
    await counters.sync();
    expect(await pointsOf(rowKey)).toBe(3); // the two kept counts, sent exactly once
    expect(await pointsOf(`h1:apiCaller:${HOUR.points}/${HOUR.windowMs}:new-caller`)).toBe(1);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]!.message).toMatch(/answers the sync again/);
    // The limit decides on the synced total: 3 counted, 2 more pass, the 6th is refused.
    expect(await outcome(limit.consume('caller'))).toBe('ok');
    expect(await outcome(limit.consume('caller'))).toBe('ok');
    expect(await outcome(limit.consume('caller'))).toBe('refused');
  });
});
