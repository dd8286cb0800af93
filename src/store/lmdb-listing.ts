/**
 * The rows of LISTED_TABLES listed by table and instance (`['~rows', table, instanceId, id]`,
 * keys.ts): a periodic pass asks which instances have a pending outbox message or an execution
 * set and reads those, not every instance (docs/architecture.md, "Periodic passes read the
 * instances with work"). A listing key is put and removed with its row in the append's write transaction
 * and by a load; a data directory written before the listing gets it at open (LISTING_META,
 * put once a directory with instances has been listed, or by the first append to a directory
 * that had none).
 */
import type { Key, RootDatabase } from 'lmdb';
import { LISTED_TABLES, type Logger } from '../../actors/index.js';
import * as keys from './keys.js';
import { instanceIds } from './lmdb-index-build.js';

type Db = RootDatabase<unknown, Key>;

/** Meta key: the version of the listing the file holds (absent: written before it; build at open). */
export const LISTING_META = 'rows.listing';
const LISTING_VERSION = 1;

const LISTED = new Set(LISTED_TABLES);

/** Puts or removes the listing key of a row of a listed table (inside the row's write transaction). */
export function writeListing(db: Db, instanceId: string, table: string, id: string, present: boolean): void {
  if (!LISTED.has(table)) return;
  if (present) db.put(keys.listingKey(table, instanceId, id), null);
  else db.remove(keys.listingKey(table, instanceId, id));
}

/** The instances with a row of `table`: one seek per instance listed, whatever its row count. */
export async function* instancesWithRows(db: Db, table: string): AsyncGenerator<string> {
  if (!LISTED.has(table)) throw new Error(`instancesWithRows: table ${table} is not in LISTED_TABLES`);
  let after = '';
  for (;;) {
    const [key] = Array.from(db.getKeys({ ...keys.listingRange(table, after), limit: 1 }));
    if (!Array.isArray(key)) return;
    after = String(key[2]);
    yield after;
  }
}

/** Marks the listing complete (a load, which lists every row it writes). */
export function markListed(db: Db): Promise<boolean> {
  return db.put(keys.metaKey(LISTING_META), LISTING_VERSION);
}

/**
 * Marks the listing complete inside the caller's write transaction: the store's first append to a
 * directory that had no instances at open, whose every row is listed as it is written. Should that
 * transaction not commit, the directory is listed at its next open instead.
 */
export function markListedInTxn(db: Db): void {
  db.put(keys.metaKey(LISTING_META), LISTING_VERSION);
}

/**
 * Lists the rows of every listed table when the file was written before the listing; returns the
 * rows listed, and whether the file is marked listed (false: it has no instances yet, and its
 * first append marks it, markListedInTxn).
 */
export function buildListing(db: Db, logger?: Logger): { readonly rows: number; readonly listed: boolean } {
  if (db.get(keys.metaKey(LISTING_META)) === LISTING_VERSION) return { rows: 0, listed: true };
  let rows = 0;
  let instances = 0;
  // Puts only (a key is null whatever it lists), so a build cut short by a crash is run again whole.
  for (const instanceId of instanceIds(db)) {
    instances += 1;
    db.transactionSync(() => {
      for (const table of LISTED_TABLES) {
        for (const key of db.getKeys(keys.recordRange(instanceId, table))) {
          db.put(keys.listingKey(table, instanceId, String(keys.lastPart(key))), null);
          rows += 1;
        }
      }
    });
  }
  // A directory without instances has nothing to list and is left as it is (no write at open,
  // which would change lmdb-js's timing of the appends after it): its first append marks it.
  if (instances === 0) return { rows: 0, listed: false };
  db.transactionSync(() => db.put(keys.metaKey(LISTING_META), LISTING_VERSION));
  if (rows > 0) logger?.info({ rows }, 'lmdb row listing built');
  return { rows, listed: true };
}
