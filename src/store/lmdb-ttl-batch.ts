/**
 * Group commit of LMDB TTL puts (issue 13: batched TTL writes for opaque tokens). A put joins
 * the open batch; a batch is written as soon as no earlier batch is still being committed and
 * flushed, so under load every put that arrived during one commit + fsync goes into the next
 * single write transaction and fsync instead of each event turn paying its own. Every put of
 * a batch resolves only once that batch is on disk (one promise shared by the batch: no
 * closure or promise per put), and all of them reject if it fails: a put is never
 * acknowledged before it is durable. Idle, a put is written on the next event turn, as lmdb-js
 * would have batched it anyway.
 *
 * One key per row: the puts of a batch that expire at the same time share one expiry-group
 * entry of the sweeper's index (keys.ts `ttlGroupKey`: the rows' keys in its value) instead of
 * an index key each, so under load an opaque access token costs one LMDB key (tokens issued in
 * the same second expire in the same second) plus a share of one group entry.
 *
 * Order: other writes to TTL rows (take, delete, claim) call `writeNow()` first, so queued
 * puts reach LMDB before them; reads see a put once it resolved, as with a plain lmdb-js put.
 */
import type { Key } from 'lmdb';
import { pooledRandomBase64url } from '../crypto/random.js';
import * as keys from './keys.js';

interface WritableDb {
  put(key: Key, value: unknown, version?: number): Promise<boolean>;
}

interface Batch {
  /** Flat: instanceId, table, key, rowKey, value, expiresAt per put (no object per put). */
  readonly items: unknown[];
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export interface TtlPutBatcher {
  /** `instanceId`, `table` and `key` are the parts of `rowKey` (the expiry group lists them). */
  put(instanceId: string, table: string, key: string, rowKey: Key, value: unknown, expiresAt: number): Promise<void>;
  /** Writes the queued puts now (before another write that must follow them); resolves when they are durable. */
  writeNow(): Promise<void>;
  /** Resolves when every put so far is durable (or failed). */
  idle(): Promise<void>;
}

/** Values per queued put in Batch.items. */
const ITEM = 6;
/** Rows per expiry-group entry at most (bounds the entry's size and a sweep transaction). */
export const GROUP_ROWS = 256;

/** `durable` resolves after the commit of the given write is on disk. */
export function createTtlPutBatcher(db: WritableDb, durable: (write: Promise<unknown>) => Promise<unknown>): TtlPutBatcher {
  // Group ids unique across processes and workers sharing the environment: a random prefix, a counter.
  const groupPrefix = `${pooledRandomBase64url(9)}.`;
  let groupSeq = 0;
  let open: Batch | undefined;
  let writing = 0;
  let scheduled = false;
  let inFlight: Promise<unknown> = Promise.resolve();

  function newBatch(): Batch {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { items: [], done, resolve, reject };
  }

  function write(): Promise<void> {
    scheduled = false;
    const batch = open;
    if (batch === undefined) return Promise.resolve();
    open = undefined;
    writing += 1;
    const { items } = batch;
    let last: Promise<boolean> | undefined;
    try {
      // One synchronous run: lmdb-js puts every one of these into the same write transaction.
      for (let i = 0; i < items.length; i += ITEM) void db.put(items[i + 3] as Key, items[i + 4], items[i + 5] as number);
      last = writeGroups(items);
    } catch (err) {
      batch.reject(err);
    }
    const flushed = durable(last ?? Promise.resolve(true)).then(
      () => {
        batch.resolve();
        return afterBatch();
      },
      (err: unknown) => {
        batch.reject(err);
        return afterBatch();
      },
    );
    inFlight = flushed;
    return batch.done;
  }

  /**
   * The expiry-group entries of a batch: one per distinct expiry (at most GROUP_ROWS rows
   * each), its value the rows' [instanceId, table, key] flat. Resolves with the last write.
   */
  function writeGroups(items: unknown[]): Promise<boolean> | undefined {
    const groups = new Map<number, unknown[]>();
    let last: Promise<boolean> | undefined;
    for (let i = 0; i < items.length; i += ITEM) {
      const expiresAt = items[i + 5] as number;
      let members = groups.get(expiresAt);
      if (members === undefined) groups.set(expiresAt, (members = []));
      members.push(items[i], items[i + 1], items[i + 2]);
      if (members.length === GROUP_ROWS * 3) {
        last = db.put(keys.ttlGroupKey(expiresAt, `${groupPrefix}${(groupSeq += 1)}`), members);
        groups.delete(expiresAt);
      }
    }
    for (const [expiresAt, members] of groups) last = db.put(keys.ttlGroupKey(expiresAt, `${groupPrefix}${(groupSeq += 1)}`), members);
    return last;
  }

  /** A batch written by writeNow() meanwhile leaves nothing for the scheduled turn to do. */
  function onImmediate(): void {
    if (scheduled) void write();
  }

  function afterBatch(): void {
    writing -= 1;
    // What queued during this commit goes out at once, as one batch.
    if (writing === 0 && open !== undefined && !scheduled) void write();
  }

  return {
    put(instanceId, table, key, rowKey, value, expiresAt) {
      const batch = (open ??= newBatch());
      batch.items.push(instanceId, table, key, rowKey, value, expiresAt);
      if (writing === 0 && !scheduled) {
        // Idle: written after this turn, so the puts of the same turn share the transaction.
        scheduled = true;
        setImmediate(onImmediate);
      }
      return batch.done;
    },
    writeNow: () => write(),
    async idle() {
      while (open !== undefined || writing > 0) {
        if (open !== undefined && writing === 0) await write().catch(() => undefined);
        else await inFlight.catch(() => undefined);
      }
    },
  };
}
