/**
 * A consistent copy of an LMDB environment that another process (a running node) may be
 * writing: the environment is opened read-only here and copied with mdb_env_copy2 (lmdb-js
 * `backup`), which reads one snapshot inside a read transaction. Writers are never blocked;
 * the copy holds the last transaction committed before it began. Opening read-only means
 * this process never takes the writer lock, so killing it cannot harm the source (its reader
 * slot is reclaimed by LMDB's stale-reader check).
 */
import { open, type Key } from 'lmdb';

export interface LmdbCopyStats {
  /** Keys in the copy's main database. */
  readonly entries: number;
}

/**
 * Copies the environment at `source` (a directory holding data.mdb) into `target`, an
 * existing empty directory; `compact` leaves free pages out (smaller, a little slower).
 */
export async function copyLmdbEnvironment(source: string, target: string, options: { compact: boolean }): Promise<void> {
  const db = open<unknown, Key>(source, { readOnly: true });
  try {
    await db.backup(target, options.compact);
  } finally {
    await db.close();
  }
}

/** Opens a copied environment read-only and counts its keys: it must open and read whole. */
export async function inspectLmdbCopy(path: string): Promise<LmdbCopyStats> {
  const db = open<unknown, Key>(path, { readOnly: true });
  try {
    let entries = 0;
    for (const _key of db.getKeys({ snapshot: true })) entries += 1;
    return { entries };
  } finally {
    await db.close();
  }
}
