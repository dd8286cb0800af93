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
 * Order: other writes to TTL rows (take, delete, claim) call `writeNow()` first, so queued
 * puts reach LMDB before them; reads see a put once it resolved, as with a plain lmdb-js put.
 */
import type { Key } from 'lmdb';

interface WritableDb {
  put(key: Key, value: unknown, version?: number): Promise<boolean>;
}

interface Batch {
  /** Flat: indexKey, rowKey, value, expiresAt per put (no object per put). */
  readonly items: unknown[];
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export interface TtlPutBatcher {
  put(indexKey: Key, rowKey: Key, value: unknown, expiresAt: number): Promise<void>;
  /** Writes the queued puts now (before another write that must follow them); resolves when they are durable. */
  writeNow(): Promise<void>;
  /** Resolves when every put so far is durable (or failed). */
  idle(): Promise<void>;
}

/** `durable` resolves after the commit of the given write is on disk. */
export function createTtlPutBatcher(db: WritableDb, durable: (write: Promise<unknown>) => Promise<unknown>): TtlPutBatcher {
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
      for (let i = 0; i < items.length; i += 4) {
        void db.put(items[i] as Key, null);
        last = db.put(items[i + 1] as Key, items[i + 2], items[i + 3] as number);
      }
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
    put(indexKey, rowKey, value, expiresAt) {
      const batch = (open ??= newBatch());
      batch.items.push(indexKey, rowKey, value, expiresAt);
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
