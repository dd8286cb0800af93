/**
 * Dump and load of a whole LMDB store (`tessera copy-store`). The dump walks every key once,
 * in key order, in synchronous pages (no read transaction stays open while the consumer
 * awaits) and turns each into a DumpEntry; stream indexes and the TTL expiry index are left
 * out because load rebuilds them from the events and TTL rows, exactly as append and
 * ttl.put write them (key layout: keys.ts).
 */
import { compareKeys, type Key, type RootDatabase } from 'lmdb';
import type { DumpCounts, DumpEntry, IndexCatalog, LoadOptions, TableIndexes } from '../../actors/index.js';
import { batches, count, emptyCounts, StoreNotEmptyError } from './dump.js';
import * as keys from './keys.js';
import { decodeEvent, encodeEvent } from './lmdb-events.js';
import { INDEX_BUILD_META, INDEX_VERSION_META } from './lmdb-index-build.js';
import { LISTING_META, markListed, writeListing } from './lmdb-listing.js';
import { createIndexCodes, type IndexCodes } from './lmdb-index-codes.js';
import { writeIndexes } from './lmdb-indexes.js';
import { EMPTY_CATALOG, tablesOf } from '../../actors/index.js';

type Db = RootDatabase<unknown, Key>;
type Durable = <T>(write: Promise<T>) => Promise<T>;

const PAGE = 512;

export async function* dumpLmdb(db: Db, now: number): AsyncGenerator<DumpEntry> {
  let after: Key | undefined;
  for (;;) {
    const from = after;
    const page = Array.from(db.getRange({ ...(from === undefined ? {} : { start: from }), limit: PAGE + 1, versions: true }));
    const fresh = page.filter(({ key }) => from === undefined || compareKeys(key, from) !== 0).slice(0, PAGE);
    const entries: DumpEntry[] = [];
    for (const { key, value, version } of fresh) {
      const entry = toEntry(key, value, version, now);
      if (entry !== undefined) entries.push(entry);
    }
    yield* entries;
    if (fresh.length < PAGE) return;
    after = fresh[fresh.length - 1]!.key;
  }
}

/** A meta key describing this file rather than holding the node's data: index markers, msgpack structures. */
function isStoreMarker(key: Key): boolean {
  if (!Array.isArray(key) || key[0] !== keys.META) return false;
  return key[1] === INDEX_VERSION_META || key[1] === INDEX_BUILD_META || key[1] === LISTING_META || key[1] === keys.STRUCTURES_META;
}

/** The entry a key stands for, or undefined for derived keys and expired TTL rows. */
function toEntry(key: Key, value: unknown, version: number | undefined, now: number): DumpEntry | undefined {
  // lmdb-js keeps its shared msgpack structures under a non-array key: not our data.
  if (!Array.isArray(key)) return undefined;
  const [first, tag] = key as unknown[];
  // The index markers describe this store's indexes, which a load rebuilds for itself; the
  // shared msgpack structures are this file's encoding (a load encodes with its own).
  if (first === keys.META) return isStoreMarker(key) ? undefined : { kind: 'meta', key: String(tag), value };
  if (first === keys.TTL_INDEX || first === keys.LISTING || first === keys.ACROSS) return undefined;
  const instanceId = String(first);
  const part = (i: number) => String(key[i]);
  switch (tag) {
    case 'e':
      return { kind: 'event', event: decodeEvent(instanceId, Number(key[2]), value) };
    case 'h':
      return { kind: 'head', instanceId, aggregateType: part(2), aggregateId: part(3), version: Number(value) };
    case 's':
    case 'i':
    case 'd':
    case 'x':
    case 'n':
    case 'v':
      return undefined;
    case 'p': {
      const [position, createdAt] = value as [number, number];
      return { kind: 'position', instanceId, position: Number(position), createdAt: Number(createdAt) };
    }
    case 'r':
      return { kind: 'record', instanceId, table: part(2), id: part(3), value };
    case 'u':
      return { kind: 'unique', instanceId, scope: part(2), value: part(3), holder: String(value) };
    case 't': {
      const expiresAt = Number(version);
      return expiresAt > now ? { kind: 'ttl', instanceId, table: part(2), key: part(3), value, expiresAt } : undefined;
    }
    default:
      // Index entries (their code in place of a tag) are derived: the load rebuilds them.
      if (keys.isIndexCode(tag)) return undefined;
      // Never drop data silently: a key this code does not know makes the copy fail.
      throw new Error(`lmdb dump: unknown key ${JSON.stringify(key)}`);
  }
}

/** Loads a dump; with a catalog every record is indexed as it is written, and the indexes are marked current. */
export async function loadLmdb(db: Db, entries: AsyncIterable<DumpEntry>, durable: Durable, options: LoadOptions = {}, catalog?: IndexCatalog): Promise<DumpCounts> {
  for (const key of db.getKeys()) {
    // The index markers and msgpack structures of an empty store (written at open) are not data.
    if (Array.isArray(key) && !isStoreMarker(key)) throw new StoreNotEmptyError('(LMDB directory)');
  }
  const counts = emptyCounts();
  const indexing = { tables: tablesOf(catalog ?? EMPTY_CATALOG), codes: createIndexCodes(catalog ?? EMPTY_CATALOG) };
  for await (const batch of batches(entries)) {
    await durable(db.transaction(() => batch.forEach((entry) => write(db, entry, indexing))));
    count(counts, batch);
    options.onProgress?.(counts);
  }
  if (catalog !== undefined) await durable(db.put(keys.metaKey(INDEX_VERSION_META), catalog.version));
  await durable(markListed(db));
  return counts;
}

/** The same keys and entry versions append, ttl.put and putMeta write (lmdb-store.ts). */
function write(db: Db, entry: DumpEntry, { tables, codes }: { tables: ReadonlyMap<string, readonly TableIndexes[]>; codes: IndexCodes }): void {
  switch (entry.kind) {
    case 'event': {
      const e = entry.event;
      db.put(keys.eventKey(e.instanceId, e.position), encodeEvent(e));
      db.put(keys.streamIndexKey(e.instanceId, e.aggregateType, e.aggregateId, e.version), e.position);
      return;
    }
    case 'head':
      db.put(keys.headKey(entry.instanceId, entry.aggregateType, entry.aggregateId), entry.version, entry.version);
      return;
    case 'position':
      db.put(keys.counterKey(entry.instanceId), [entry.position, entry.createdAt]);
      return;
    case 'record': {
      db.put(keys.recordKey(entry.instanceId, entry.table, entry.id), entry.value);
      writeListing(db, entry.instanceId, entry.table, entry.id, true);
      const indexed = tables.get(entry.table);
      if (indexed !== undefined) writeIndexes(db, indexed, entry.instanceId, entry.id, entry.value, { codes });
      return;
    }
    case 'unique':
      db.put(keys.uniqueKey(entry.instanceId, entry.scope, entry.value), entry.holder);
      return;
    case 'ttl':
      db.put(keys.ttlIndexKey(entry.expiresAt, entry.instanceId, entry.table, entry.key), null);
      db.put(keys.ttlKey(entry.instanceId, entry.table, entry.key), entry.value, entry.expiresAt);
      return;
    case 'meta':
      db.put(keys.metaKey(entry.key), entry.value);
      return;
  }
}
