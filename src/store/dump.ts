/**
 * Shared pieces of whole-store dump and load (`tessera copy-store`, docs/operations/postgres.md
 * "Moving between stores"): the running counts, the refusal of a non-empty target, and the
 * batching both loaders use so a dump of any size streams through bounded memory.
 */
import type { DumpCounts, DumpEntry } from '../../actors/index.js';

/** Entries per write transaction (LMDB) or per flush of the multi-row inserts (PostgreSQL). */
export const LOAD_BATCH = 1000;

export function emptyCounts(): DumpCounts {
  return { event: 0, head: 0, position: 0, record: 0, unique: 0, ttl: 0, meta: 0 };
}

/** Thrown by `load` before anything is written: a copy never merges into existing data. */
export class StoreNotEmptyError extends Error {
  constructor(where: string) {
    super(`the target store ${where} is not empty: copy-store only loads into an empty store (use a new directory or schema)`);
    this.name = 'StoreNotEmptyError';
  }
}

/** Groups an async stream into arrays of at most `size` items. */
export async function* batches<T>(items: AsyncIterable<T>, size = LOAD_BATCH): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export function count(counts: DumpCounts, batch: readonly DumpEntry[]): void {
  for (const entry of batch) counts[entry.kind] += 1;
}
