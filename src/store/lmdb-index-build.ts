/**
 * Builds the LMDB indexes of rows written before them (or under an older catalog version):
 * run at open, before the store serves anything. Versioned and resumable: the meta key
 * `index.version` names the catalog version the indexes match; while a build runs,
 * `index.build` records how far it got (instance, table, last row id), committed with each
 * batch, so a build interrupted by a crash continues where it stopped.
 */
import type { Key, RootDatabase } from 'lmdb';
import { type IndexCatalog, type Logger, storedTableOf } from '../../actors/index.js';
import * as keys from './keys.js';
import { createIndexCodes } from './lmdb-index-codes.js';
import { clearAcrossKeys, clearInstanceIndexKeys, clearTableIndexes, hasAcrossKeys, IndexBatch, writeIndexes } from './lmdb-indexes.js';

type Db = RootDatabase<unknown, Key>;

export const INDEX_VERSION_META = 'index.version';
export const INDEX_BUILD_META = 'index.build';

const BATCH = 2000;

interface BuildProgress {
  readonly version: number;
  readonly instanceId: string;
  readonly table: string;
  /** Last row id indexed in `table` ('' before the first). */
  readonly after: string;
}

/** Brings the indexes up to `catalog.version`; returns the number of rows indexed. */
export function buildIndexes(db: Db, catalog: IndexCatalog, logger?: Logger): number {
  if (db.get(keys.metaKey(INDEX_VERSION_META)) === catalog.version) return 0;
  const saved = db.get(keys.metaKey(INDEX_BUILD_META)) as BuildProgress | undefined;
  let resume = saved?.version === catalog.version && catalog.tables.some((t) => t.table === saved.table) ? saved : undefined;
  let rows = 0;
  const codes = createIndexCodes(catalog);
  if (resume !== undefined) logger?.info({ ...resume }, 'lmdb index build resumed');
  // A build from the start writes every entry again, those kept across instances too: the old
  // ones go first (a resumed build already cleared them when it started). Nothing is written when
  // there are none (a new directory).
  else if (hasAcrossKeys(db)) db.transactionSync(() => clearAcrossKeys(db));
  for (const instanceId of instanceIds(db, resume?.instanceId)) {
    for (const table of catalog.tables) {
      if (resume !== undefined && (resume.instanceId !== instanceId || resume.table !== table.table)) continue;
      let after = resume?.after ?? '';
      if (resume === undefined) {
        db.transactionSync(() => {
          // The instance's first table: every index key of it goes (codes renumbered, old layouts).
          if (table === catalog.tables[0]) clearInstanceIndexKeys(db, instanceId);
          clearTableIndexes(db, instanceId, table);
          db.put(keys.metaKey(INDEX_BUILD_META), { version: catalog.version, instanceId, table: table.table, after: '' });
        });
      }
      resume = undefined;
      for (;;) {
        // A sub-row table is built from its parent rows (`after` is then a parent id).
        const stored = storedTableOf(table);
        const range = keys.recordRange(instanceId, stored);
        const page = Array.from(db.getRange({ start: after === '' ? range.start : keys.recordKey(instanceId, stored, after), end: range.end, limit: BATCH + 1 }));
        const fresh = page.filter(({ key }) => after === '' || keys.lastPart(key) !== after).slice(0, BATCH);
        if (fresh.length === 0) break;
        const last = String(keys.lastPart(fresh[fresh.length - 1]!.key));
        db.transactionSync(() => {
          const batch = new IndexBatch();
          for (const { key, value } of fresh) writeIndexes(db, [table], instanceId, String(keys.lastPart(key)), value, { codes, batch });
          batch.write(db);
          db.put(keys.metaKey(INDEX_BUILD_META), { version: catalog.version, instanceId, table: table.table, after: last });
        });
        rows += fresh.length;
        after = last;
        if (fresh.length < BATCH) break;
      }
    }
  }
  db.transactionSync(() => {
    db.put(keys.metaKey(INDEX_VERSION_META), catalog.version);
    db.remove(keys.metaKey(INDEX_BUILD_META));
  });
  logger?.info({ version: catalog.version, rows }, 'lmdb indexes built');
  return rows;
}

/** Instance ids present in the store, in key order, from `from` (inclusive). */
export function* instanceIds(db: Db, from?: string): Generator<string> {
  let start: Key = [from ?? ''];
  for (;;) {
    const [key] = Array.from(db.getKeys({ start, limit: 1 }));
    if (!Array.isArray(key)) return;
    const id = key[0];
    if (typeof id !== 'string') return;
    if (!id.startsWith('~')) yield id;
    start = keys.afterInstance(id);
  }
}
