/**
 * Reads of one API request on PostgreSQL, checked once against the instance's position
 * (docs/operations/postgres.md "Round trips"). A request's first read fetches the instance's
 * position row (one statement: it also answers projectionState), or, when it is a search's
 * index page, reads the row in the page's own statement; while that position is the
 * one the node's cache was filled at, read-model rows and unique lookups come from the cache,
 * and what the cache lacks is read and kept for the next request. Any append moves the
 * position. A batch the cache is told about (`advance`: this store's own, another worker's over
 * the worker channel, another node's when its notification carried the batch) that starts at the
 * cache's position moves the cache to the batch's end, dropping the rows and claims it wrote;
 * otherwise the next request's check finds a new position and starts a new generation: nothing
 * kept before it is used again.
 *
 * Why this keeps "reads see every node's committed writes": a write another request saw
 * committed has a position at most the one this request reads first (positions are assigned
 * in commit order under the instance lock, postgres-append.ts), and every entry of the current
 * generation was read by a statement that started after a check that saw that same position.
 * A fill whose generation was replaced while it ran is dropped; a request whose check is older
 * than the current generation reads the database directly. An advance keeps only entries the
 * batch did not write, which the batch left as they were, and moves the epoch, so a fill under
 * way while it happened (it may have read either side of the batch) is not kept.
 *
 * Rows are kept as their stored bytes and decoded on every hit, so a caller that changes the
 * object it got cannot change what the next request reads.
 */
import type { Sql } from 'postgres';
import type { CommittedBatch, IndexWalk, ProjectionState, RequestReads, UniqueKey } from '../../actors/index.js';
import { createPgIndexReads, createPositionedIndexReads, IQ, type PositionedRead } from './postgres-indexes.js';
import type { PgTermColumns } from './postgres-term-columns.js';
import { checkInstance, decodeValue, hasNul, PREPARED, Q, readPosition } from './postgres-queries.js';

/** Entries kept across all instances; the oldest is dropped first. */
export const READ_CACHE_ENTRIES = 20_000;

/** The cache's key of a row, and of a unique value. */
const rowKey = (instanceId: string, table: string, id: string) => `r\u0000${instanceId}\u0000${table}\u0000${id}`;
const claimKey = (instanceId: string, scope: string, value: string) => `u\u0000${instanceId}\u0000${scope}\u0000${value}`;

/** A cached absent value (a lookup that found nothing). */
const ABSENT = Symbol('absent');

interface Entry {
  readonly generation: number;
  readonly value: Buffer | string | typeof ABSENT;
}

/** A request's position check: the position, and the cache generation the request may use (-1: none, read directly). */
interface Checked {
  readonly state: ProjectionState;
  readonly generation: number;
}

interface InstanceState {
  position: number;
  createdAt: number;
  generation: number;
  /** Moves at every append of this node: a read started before it is not kept. */
  epoch: number;
}

export interface ReadCache {
  /** The reads of one request of `instanceId` (other instances' reads go to the database). */
  view(instanceId: string): RequestReads;
  /**
   * Positions `from`+1..`to` were committed, by this store, another worker's (the worker channel)
   * or another node's (the change feed, when the notification carried the batch): when the cache
   * was at `from`, it moves to `to` in the same generation, dropping the rows and claims the batch
   * wrote (the next request reads those); otherwise the next check starts a new generation.
   */
  advance(batch: CommittedBatch): void;
  /** Forgets everything (after a load). */
  clear(): void;
  /** Entries held (tests). */
  readonly size: number;
}

export function createReadCache(sql: Sql, columns?: PgTermColumns, maxEntries = READ_CACHE_ENTRIES): ReadCache {
  const entries = new Map<string, Entry>();
  const instances = new Map<string, InstanceState>();
  const indexes = createPgIndexReads(sql, columns);
  const positionedIndexes = createPositionedIndexReads(sql, columns);
  let generations = 0;

  const keep = (key: string, entry: Entry) => {
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };

  /** The instance's position now; starts a new generation when it moved. */
  async function check(instanceId: string): Promise<Checked> {
    return adopt(instanceId, await readPosition(sql, instanceId));
  }

  /** A position a statement of this request read (the check, or an index read beside it): the generation it may use. */
  function adopt(instanceId: string, state: ProjectionState): Checked {
    const known = instances.get(instanceId);
    if (known !== undefined && known.position === state.position) return { state, generation: known.generation };
    if (known !== undefined && known.position > state.position) return { state, generation: -1 }; // an older answer than a concurrent check's: read directly
    generations += 1;
    instances.set(instanceId, { ...state, generation: generations, epoch: 0 });
    return { state, generation: generations };
  }

  return {
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
      instances.clear();
    },
    advance({ instanceId, from, to, createdAt, records, claims }) {
      const state = instances.get(instanceId);
      // Nothing held, or the batch is already in what is held (advanced through, or checked past it: told twice, by the worker channel and the database).
      if (state === undefined || state.position >= to) return;
      state.epoch += 1;
      if (state.position !== from) return;
      for (const [table, id] of records) entries.delete(rowKey(instanceId, table, id));
      for (const [scope, value] of claims) entries.delete(claimKey(instanceId, scope, value));
      state.position = to;
      state.createdAt = createdAt;
    },
    view(instanceId) {
      checkInstance(instanceId);
      let checked: Promise<Checked> | undefined;
      const ready = () => (checked ??= check(instanceId));
      /**
       * An index read: before the request's check, the statement also reads the position and
       * stands for the check (the reads after it wait for it); after, the plain statement.
       */
      const positioned = <T>(read: () => Promise<PositionedRead<T>>, plain: () => Promise<T>): Promise<T> => {
        if (checked !== undefined) return plain();
        const running = read();
        const done = running.then(({ state }) => adopt(instanceId, state));
        checked = done;
        // Failed: the request fails with the read's error; a later read of it checks afresh.
        done.catch(() => {
          if (checked === done) checked = undefined;
        });
        return running.then(({ result }) => result);
      };
      /** The generation this request may use (and the epoch a fill starts in), or undefined when a newer check replaced it. */
      const current = async (): Promise<{ generation: number; epoch: number } | undefined> => {
        const { generation } = await ready();
        const state = instances.get(instanceId);
        return generation >= 0 && state?.generation === generation ? { generation, epoch: state.epoch } : undefined;
      };
      /** Keeps a fill that started at `at` unless a new generation or an append of this node came in between. */
      const fill = (at: { generation: number; epoch: number } | undefined, key: string, value: Entry['value']) => {
        const state = instances.get(instanceId);
        if (at !== undefined && state?.generation === at.generation && state.epoch === at.epoch) keep(key, { generation: at.generation, value });
      };
      const mine = (other: string) => other === instanceId;
      return {
        readIndexWithSummaries(id: string, walk: IndexWalk) {
          if (!mine(id)) return indexes.readIndexWithSummaries!(id, walk);
          return positioned(() => positionedIndexes.readIndexWithSummaries(id, walk), () => indexes.readIndexWithSummaries!(id, walk));
        },
        readIndexPage(id: string, walk: IndexWalk) {
          if (!mine(id)) return indexes.readIndexPage!(id, walk);
          return positioned(() => positionedIndexes.readIndexPage(id, walk), () => indexes.readIndexPage!(id, walk));
        },
        async projectionState(id: string) {
          if (mine(id)) return (await ready()).state;
          return readPosition(sql, checkInstance(id));
        },
        async getRecord(id: string, table: string, rowId: string) {
          checkInstance(id);
          if (hasNul(table) || hasNul(rowId)) return undefined;
          const at = mine(id) ? await current() : undefined;
          const key = rowKey(id, table, rowId);
          const hit = at === undefined ? undefined : entries.get(key);
          if (hit !== undefined && hit.generation === at?.generation) return hit.value === ABSENT ? undefined : decodeValue(hit.value);
          const [row] = await sql.unsafe<{ value: Buffer }[]>(Q.getRecord, [id, table, rowId], PREPARED);
          fill(at, key, row?.value ?? ABSENT);
          return row === undefined ? undefined : decodeValue(row.value);
        },
        async getRecords(id: string, table: string, ids: readonly string[]) {
          checkInstance(id);
          const at = mine(id) ? await current() : undefined;
          const out = new Map<string, Buffer | typeof ABSENT>();
          const missing: string[] = [];
          for (const rowId of new Set<string>(ids)) {
            if (hasNul(rowId)) continue;
            const hit = at === undefined ? undefined : entries.get(rowKey(id, table, rowId));
            if (hit !== undefined && hit.generation === at?.generation && typeof hit.value !== 'string') out.set(rowId, hit.value);
            else missing.push(rowId);
          }
          if (missing.length > 0 && !hasNul(table)) {
            const rows = await sql.unsafe<{ id: string; value: Buffer }[]>(IQ.getRecords, [id, table, missing], PREPARED);
            for (const r of rows) out.set(r.id, r.value);
            for (const rowId of missing) fill(at, rowKey(id, table, rowId), out.get(rowId) ?? ABSENT);
          }
          return ids.map((rowId) => {
            const value = out.get(rowId);
            return value === undefined || value === ABSENT ? undefined : decodeValue(value);
          });
        },
        async findUniques(id: string, keys: readonly UniqueKey[]) {
          checkInstance(id);
          const at = mine(id) ? await current() : undefined;
          const holders = new Array<string | undefined>(keys.length);
          const missing: number[] = [];
          for (const [i, [scope, value]] of keys.entries()) {
            if (hasNul(scope) || hasNul(value)) continue;
            const hit = at === undefined ? undefined : entries.get(claimKey(id, scope, value));
            if (hit !== undefined && hit.generation === at?.generation) holders[i] = typeof hit.value === 'string' ? hit.value : undefined;
            else missing.push(i);
          }
          if (missing.length === 0) return holders;
          const asked = missing.map((i) => keys[i]!);
          const rows = await sql.unsafe<{ scope: string; value: string; holder: string }[]>(Q.holders, [id, asked.map(([scope]) => scope), asked.map(([, value]) => value)], PREPARED);
          const found = new Map(rows.map((r) => [claimKey(id, r.scope, r.value), r.holder]));
          for (const i of missing) {
            const key = claimKey(id, keys[i]![0], keys[i]![1]);
            holders[i] = found.get(key);
            fill(at, key, holders[i] ?? ABSENT);
          }
          return holders;
        },
        async findUnique(id: string, scope: string, value: string) {
          checkInstance(id);
          if (hasNul(scope) || hasNul(value)) return undefined;
          const at = mine(id) ? await current() : undefined;
          const key = claimKey(id, scope, value);
          const hit = at === undefined ? undefined : entries.get(key);
          if (hit !== undefined && hit.generation === at?.generation) return typeof hit.value === 'string' ? hit.value : undefined;
          const [row] = await sql.unsafe<{ holder: string }[]>(Q.findUnique, [id, scope, value], PREPARED);
          fill(at, key, row?.holder ?? ABSENT);
          return row?.holder;
        },
      };
    },
  };
}
