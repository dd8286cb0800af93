/**
 * A consistent copy of an LMDB environment that another process (a running node) may be
 * writing: the environment is opened read-only here and copied with mdb_env_copy2 (lmdb-js
 * `backup`), or entry by entry in key order for a compact copy, either way inside one read
 * transaction. Writers are never blocked; the copy holds the last transaction committed before
 * it began. Opening read-only means this process never takes the writer lock, so killing it
 * cannot harm the source (its reader slot is reclaimed by LMDB's stale-reader check).
 */
import { open, type Key } from 'lmdb';

export interface LmdbCopyStats {
  /** Keys in the copy's main database. */
  readonly entries: number;
}

/**
 * Copies the environment at `source` (a directory holding data.mdb) into `target`, an
 * existing empty directory. Without `compact` the copy is page for page (mdb_env_copy2); with
 * it every entry is written again in key order (`repackLmdbEnvironment`): a smaller file whose
 * pages are full.
 */
export async function copyLmdbEnvironment(source: string, target: string, options: { compact: boolean }): Promise<void> {
  if (options.compact) return repackLmdbEnvironment(source, target);
  const db = open<unknown, Key>(source, { readOnly: true });
  try {
    await db.backup(target, false);
  } finally {
    await db.close();
  }
}

/** Entries written per write transaction of a repack. */
const REPACK_BATCH = 10_000;

/**
 * Writes every entry of `source` into a new environment at `target` in key order, each put an
 * MDB_APPEND. A B-tree page that fills up is split in half unless the put appends, so pages
 * written by a node are about half full (bench/README.md, "Bytes per user on LMDB"), and
 * mdb_env_copy2's compacting copy keeps them as they are (it only leaves free pages out). Appended
 * in order, each page is filled before the next begins (a node's store of 50,000 users: 60 % of
 * the leaf pages, a 41 % smaller file; bench/README.md, "A compact backup"). Keys, values and
 * entry versions are copied as bytes (no decoding: the shared msgpack structures travel as the
 * entry they are). One read transaction spans the whole copy, so the target holds one snapshot
 * of the source, as mdb_env_copy2 gives; the target's commits are not flushed one by one (the
 * caller syncs the finished file).
 */
export async function repackLmdbEnvironment(source: string, target: string): Promise<void> {
  const from = open<Buffer, Buffer>(source, { readOnly: true, useVersions: true, encoding: 'binary', keyEncoding: 'binary' });
  const to = open<Buffer, Buffer>(target, { useVersions: true, encoding: 'binary', keyEncoding: 'binary', noSync: true });
  const entries = from.getRange({ snapshot: true, versions: true })[Symbol.iterator]();
  try {
    for (let done = false; !done; ) {
      done = to.transactionSync(() => {
        for (let i = 0; i < REPACK_BATCH; i++) {
          const next = entries.next();
          if (next.done === true) return true;
          const { key, value, version } = next.value;
          to.putSync(key, value, { append: true, version: version ?? 0 });
        }
        return false;
      });
    }
  } finally {
    entries.return?.(); // ends the read transaction when a write failed part-way
    await to.close();
    await from.close();
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
