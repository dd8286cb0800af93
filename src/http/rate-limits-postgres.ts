/**
 * Rate-limit counts shared through PostgreSQL, so that the nodes of a cluster together allow a
 * limit once, not once per node (docs/operations/rate-limits.md, "Several nodes"). Counts live
 * in `rate_limit_counts` (migration 3): one row per limit scope, key and window, expiry in epoch
 * ms, expired rows deleted by every node now and then.
 *
 * Two ways of counting, by what the limit is for:
 * - Failure-driven limits (failed client authentications, password checks per IP and per login
 *   name) are rare and the security-relevant ones: each event is one upsert in PostgreSQL
 *   (`PostgresRateLimiter`, a rate-limiter-flexible store limiter), exact across the cluster.
 * - Volume limits (per client at the token endpoints, login pages per IP, API calls per
 *   caller) never wait for the database per request: each node counts locally and sends its
 *   deltas every `syncMs` (200 ms) in one statement for all keys, which answers the cluster
 *   totals; a request is decided on the last known cluster total plus what this node counted
 *   since. The first request of a key in a window on a node reads the key's row once. So the
 *   cluster may exceed a limit by what the other nodes counted during one sync interval.
 * - A client blocked after failed authentications is published as a `blocked|…` row; every
 *   node reads the live ones with each sync and refuses those clients too.
 *
 * A window starts with a key's first counted event in the cluster and lasts the limit's
 * duration (the row's expiry); the node clocks must agree (NTP) to the second.
 */
import { createRequire } from 'node:module';
import type { PendingQuery, Row, Sql } from 'postgres';
import type { RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { RateLimiterMemory, RateLimiterRes } from './rate-limiter-memory.js';
import type { Logger } from '../../actors/index.js';
import type { Rate } from '../config/duration.js';
import type { CounterFactory, LimitCounter, LimitSetting, SharedBlocks } from './rate-limits.js';

/**
 * Every statement here has a fixed text: prepared, so postgres.js sends it in one round trip once
 * the connection has described it, where an unnamed statement with parameters takes two each time.
 */
const PREPARED = { prepare: true } as const;

/**
 * The package documents RateLimiterStoreAbstract as the base of store limiters and types it,
 * but its index does not export it (11.4.0): loaded from its module file.
 */
const StoreLimiter = createRequire(import.meta.url)('rate-limiter-flexible/lib/RateLimiterStoreAbstract.js') as typeof RateLimiterStoreAbstract;

/** Row keys of published client blocks: `blocked|<instance>|<client>` (sorts apart from the counts' `<scope>:` keys). */
const BLOCKED = 'blocked|';
const BLOCKED_END = 'blocked}';

/** Limits counted in PostgreSQL at every event; the others are synced in batches. */
const EXACT_LIMITS: ReadonlySet<LimitSetting> = new Set<LimitSetting>(['clientAuthFailures', 'passwordIp', 'passwordLoginName']);
/** Row keys are cut to this length (IPs, ids and login names fit well within it). */
const MAX_KEY = 512;
/** Rows expire "never" when a duration of 0 is asked for (not used by Tessera's limits). */
const FOREVER = Number.MAX_SAFE_INTEGER;

/** A text PostgreSQL stores: NUL (the separator of instance and key in memory) becomes `|`, cut to MAX_KEY. */
function rowKeyOf(key: string): string {
  return key.replaceAll('\u0000', '|').slice(0, MAX_KEY);
}

interface CountRow {
  readonly points: string;
  readonly expires_at: string;
}

/**
 * rate-limiter-flexible's store limiter over postgres.js: one upsert per consume that resets an
 * expired row and adds to a live one, answering the row.
 */
/** How long a closing node waits for its last sync of the counts. */
const CLOSE_SYNC_MS = 2_000;
/** How long one statement of the sync loop may take before the sync gives it up (createPostgresCounters' syncTimeoutMs). */
const SYNC_TIMEOUT_MS = 1_000;

/** A sync statement that gave no answer within its bound (given up and cancelled). */
export class SyncTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`rate-limit sync statement gave no answer within ${timeoutMs} ms; cancelled`);
    this.name = 'SyncTimeoutError';
  }
}

export class PostgresRateLimiter extends StoreLimiter {
  private readonly sql: Sql;

  constructor(sql: Sql, options: { readonly keyPrefix: string; readonly points: number; readonly duration: number; readonly blockDuration: number }) {
    // While PostgreSQL is unreachable the node counts in memory (rate-limiter-flexible's insurance limiter).
    super({ storeClient: sql, ...options, insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.duration, blockDuration: options.blockDuration }) });
    this.sql = sql;
  }

  async _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<CountRow> {
    const now = Date.now();
    const expiresAt = msDuration > 0 ? now + msDuration : FOREVER;
    const [row] = await this.sql.unsafe<CountRow[]>(
      `INSERT INTO rate_limit_counts (key, points, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET
         points = CASE WHEN $4 OR rate_limit_counts.expires_at <= $5 THEN excluded.points ELSE rate_limit_counts.points + excluded.points END,
         expires_at = CASE WHEN $4 OR rate_limit_counts.expires_at <= $5 THEN excluded.expires_at ELSE rate_limit_counts.expires_at END
       RETURNING points, expires_at`,
      [rowKeyOf(rlKey), points, expiresAt, forceExpire, now],
      PREPARED,
    );
    if (row === undefined) throw new Error('rate limit upsert returned no row');
    return row;
  }

  async _get(rlKey: string): Promise<CountRow | null> {
    const [row] = await this.sql.unsafe<CountRow[]>('SELECT points, expires_at FROM rate_limit_counts WHERE key = $1 AND expires_at > $2', [rowKeyOf(rlKey), Date.now()], PREPARED);
    return row ?? null;
  }

  async _delete(rlKey: string): Promise<boolean> {
    const result = await this.sql.unsafe('DELETE FROM rate_limit_counts WHERE key = $1', [rowKeyOf(rlKey)], PREPARED);
    return result.count > 0;
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, row: CountRow): RateLimiterRes {
    const consumed = Number(row.points);
    const expiresAt = Number(row.expires_at);
    return new RateLimiterRes(Math.max(this.points - consumed, 0), expiresAt === FOREVER ? -1 : Math.max(expiresAt - Date.now(), 0), consumed, consumed === changedPoints);
  }
}

/** One key's count in its current window on this node. */
interface Entry {
  /** When the window ends (epoch ms): this node's guess until PostgreSQL answered the key's row. */
  windowEnd: number;
  /** The cluster total as PostgreSQL last answered it (this node's sent deltas included). */
  cluster: number;
  /** Counted here and being sent. */
  inflight: number;
  /** Counted here and not yet sent. */
  local: number;
  /** The first read of the key's row, while it runs. */
  loading?: Promise<void>;
}

interface SyncedRow {
  readonly key: string;
  readonly points: string;
  readonly expires_at: string;
}

/**
 * The volume counters of a node and their shared sync loop. A window starts with a key's first
 * request in the cluster (the row's insert) and ends `windowMs` later, as the row's expiry says.
 */
class BatchedCounts {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Map<string, number>();
  private syncing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private lastSweep = 0;
  /** Failed statements of the sync loop since PostgreSQL last answered them all. */
  private failures = 0;
  /** A statement of the running flush failed. */
  private failedNow = false;
  /** Told each client block found in PostgreSQL (key as published, epoch ms it ends). */
  onBlocked: ((key: string, until: number) => void) | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly logger: Pick<Logger, 'warn'> | undefined,
    syncMs: number,
    private readonly syncTimeoutMs: number,
  ) {
    this.timer = setInterval(() => void this.sync(), syncMs);
    this.timer.unref();
  }

  counter(prefix: string, rate: Rate): LimitCounter {
    return { consume: (key) => this.consume(rowKeyOf(`${prefix}:${key}`), rate) };
  }

  private async consume(rowKey: string, rate: Rate): Promise<RateLimiterRes> {
    let entry = this.entries.get(rowKey);
    if (entry === undefined || (entry.windowEnd <= Date.now() && entry.loading === undefined)) {
      entry = { windowEnd: Date.now() + rate.windowMs, cluster: 0, inflight: 0, local: 0 };
      this.entries.set(rowKey, entry);
      entry.loading = this.load(rowKey, entry);
    }
    if (entry.loading !== undefined) await entry.loading;
    const msBeforeNext = Math.max(entry.windowEnd - Date.now(), 0);
    const consumed = entry.cluster + entry.inflight + entry.local + 1;
    if (consumed > rate.points) throw new RateLimiterRes(0, msBeforeNext, consumed, false);
    entry.local += 1;
    this.dirty.set(rowKey, rate.windowMs);
    return new RateLimiterRes(rate.points - consumed, msBeforeNext, consumed, consumed === 1);
  }

  /** The key's live row as PostgreSQL knows it (once per key and window on this node). */
  private async load(rowKey: string, entry: Entry): Promise<void> {
    try {
      const [row] = await this.bounded(this.sql.unsafe<CountRow[]>('SELECT points, expires_at FROM rate_limit_counts WHERE key = $1 AND expires_at > $2', [rowKey, Date.now()], PREPARED));
      if (row !== undefined) {
        entry.cluster = Number(row.points);
        entry.windowEnd = Number(row.expires_at);
      }
    } catch (err) {
      this.warn(err); // counted locally until the next sync reaches the database
    } finally {
      delete entry.loading;
    }
  }

  /** Sends every key's delta in one statement and takes the cluster totals it answers. */
  sync(): Promise<void> {
    if (this.syncing !== undefined) return this.syncing;
    this.syncing = this.flush().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /**
   * The statement, or a SyncTimeoutError once it took `syncTimeoutMs`: the sync then ends (its
   * deltas kept for the next one) instead of waiting forever on a connection an outage left
   * hanging, and the statement is cancelled (a queued one leaves the pool's queue; a running one
   * gets PostgreSQL's cancel request, so a lock wait ends and its pool connection frees).
   */
  private bounded<T extends readonly Row[]>(query: PendingQuery<T>): Promise<Awaited<PendingQuery<T>>> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        query.cancel();
        reject(new SyncTimeoutError(this.syncTimeoutMs));
      }, this.syncTimeoutMs);
    });
    return Promise.race([query, gaveUp]).finally(() => clearTimeout(timer));
  }

  private async flush(): Promise<void> {
    this.failedNow = false;
    await this.flushStatements();
    if (!this.failedNow && this.failures > 0) {
      this.logger?.warn({ failedStatements: this.failures }, 'rate limits: PostgreSQL answers the sync again; the counts kept on this node are sent');
      this.failures = 0;
    }
  }

  private async flushStatements(): Promise<void> {
    const now = Date.now();
    for (const [rowKey, entry] of this.entries) if (entry.windowEnd <= now && entry.loading === undefined && entry.local === 0 && entry.inflight === 0) this.entries.delete(rowKey);
    const keys: string[] = [];
    const deltas: number[] = [];
    const expiries: number[] = [];
    const sent: Entry[] = [];
    for (const [rowKey, windowMs] of this.dirty) {
      const entry = this.entries.get(rowKey);
      if (entry === undefined || entry.local === 0) continue;
      keys.push(rowKey);
      deltas.push(entry.local);
      // A row that expired meanwhile starts a new window with these counts.
      expiries.push(entry.windowEnd > now ? entry.windowEnd : now + windowMs);
      entry.inflight += entry.local;
      entry.local = 0;
      sent.push(entry);
    }
    const sentDirty = new Map(this.dirty);
    this.dirty.clear();
    if (keys.length > 0) {
      try {
        const rows = await this.bounded(this.sql.unsafe<SyncedRow[]>(
          `INSERT INTO rate_limit_counts (key, points, expires_at)
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
           ON CONFLICT (key) DO UPDATE SET
             points = CASE WHEN rate_limit_counts.expires_at <= $4 THEN excluded.points ELSE rate_limit_counts.points + excluded.points END,
             expires_at = CASE WHEN rate_limit_counts.expires_at <= $4 THEN excluded.expires_at ELSE rate_limit_counts.expires_at END
           RETURNING key, points, expires_at`,
          [keys, deltas, expiries, now] as never[],
          PREPARED,
        ));
        const byKey = new Map(rows.map((r) => [r.key, r]));
        sent.forEach((entry, i) => {
          entry.inflight -= deltas[i]!;
          const row = byKey.get(keys[i]!);
          if (row === undefined) return;
          entry.cluster = Number(row.points);
          entry.windowEnd = Number(row.expires_at);
        });
      } catch (err) {
        // Not lost: sent again with the next sync. (A statement given up after its bound that
        // PostgreSQL still committed, its cancel too late, counts these deltas twice: the limit is
        // then stricter for one sync's counts, never looser.)
        sent.forEach((entry, i) => {
          entry.inflight -= deltas[i]!;
          entry.local += deltas[i]!;
          this.dirty.set(keys[i]!, sentDirty.get(keys[i]!) ?? 0);
        });
        this.warn(err);
      }
    }
    if (this.onBlocked !== undefined) {
      // Clients other nodes blocked after failed authentications (few rows: a range of the primary key).
      try {
        const rows = await this.bounded(this.sql.unsafe<{ key: string; expires_at: string }[]>(`SELECT key, expires_at FROM rate_limit_counts WHERE key >= $1 AND key < $2 AND expires_at > $3`, [BLOCKED, BLOCKED_END, now], PREPARED));
        for (const row of rows) this.onBlocked(row.key.slice(BLOCKED.length), Number(row.expires_at));
      } catch (err) {
        this.warn(err);
      }
    }
    if (now - this.lastSweep >= 30_000) {
      this.lastSweep = now;
      await this.bounded(this.sql.unsafe('DELETE FROM rate_limit_counts WHERE key IN (SELECT key FROM rate_limit_counts WHERE expires_at <= $1 LIMIT 5000)', [now], PREPARED)).catch((err: unknown) => this.warn(err));
    }
  }

  private warn(err: unknown): void {
    // One line per streak of failures (an outage), not one per sync; a sync whose statements all
    // succeed ends the streak (flush).
    this.failedNow = true;
    if (this.failures++ === 0) this.logger?.warn({ err }, 'rate limits: PostgreSQL unreachable; counting on this node until it is back');
  }

  /**
   * Stops the loop and sends what is still counted, waiting at most CLOSE_SYNC_MS: a shutdown
   * never waits on a database that does not answer (a query on a connection the outage left
   * hanging would otherwise hold the node's exit forever).
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_SYNC_MS)));
    await Promise.race([this.sync().catch(() => undefined), gaveUp]);
    clearTimeout(timer);
  }
}

export interface PostgresCounters {
  readonly counters: CounterFactory;
  /** Sends the volume counts now instead of at the next tick (tests, shutdown); reads the published blocks. */
  sync(): Promise<void>;
  /** Client blocks shared by the nodes (RateLimitOptions.sharedBlocks). */
  readonly blocks: SharedBlocks;
  /** Sends what is still counted here and stops the sync loop (the caller ends `sql`). */
  close(): Promise<void>;
}

/** Counters on `sql` (a pool whose search_path is the store's schema). */
export function createPostgresCounters(sql: Sql, options: { readonly logger?: Pick<Logger, 'warn'>; readonly syncMs?: number; readonly syncTimeoutMs?: number } = {}): PostgresCounters {
  const batched = new BatchedCounts(sql, options.logger, options.syncMs ?? 200, options.syncTimeoutMs ?? SYNC_TIMEOUT_MS);
  return {
    counters(limit, rate, scope) {
      const prefix = `${scope}:${limit}:${rate.points}/${rate.windowMs}`;
      if (EXACT_LIMITS.has(limit)) {
        const duration = rate.windowMs / 1_000;
        return new PostgresRateLimiter(sql, { keyPrefix: prefix, points: rate.points, duration, blockDuration: duration });
      }
      return batched.counter(prefix, rate);
    },
    sync: () => batched.sync(),
    blocks: {
      async publish(key, until) {
        await sql.unsafe(
          `INSERT INTO rate_limit_counts (key, points, expires_at) VALUES ($1, 1, $2)
           ON CONFLICT (key) DO UPDATE SET expires_at = GREATEST(rate_limit_counts.expires_at, excluded.expires_at)`,
          [rowKeyOf(BLOCKED + key), Math.floor(until)],
          PREPARED,
        );
      },
      subscribe(onBlocked) {
        // Back to the in-memory key: the first `|` separates the instance (its ids have none) from the client.
        batched.onBlocked = (key, until) => onBlocked(key.replace('|', '\u0000'), until);
      },
    },
    close: () => batched.close(),
  };
}
