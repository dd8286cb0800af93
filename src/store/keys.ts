/**
 * The LMDB key layout, in one place: ordered array keys (lmdb-js ordered-binary), tenant
 * (instance id) first in every tenant key, one-letter table tags, no NUL characters (NUL
 * is ordered-binary's element separator). Node-level keys start with '~', which no
 * instance id may start with, so they never fall inside a tenant's range.
 *
 * | key                                          | value                         |
 * | -------------------------------------------- | ----------------------------- |
 * | [instanceId, 'e', position]                  | event record (EventRecord)    |
 * | [instanceId, 'h', aggregateType, aggregateId]| stream version (entry version = same) |
 * | [instanceId, 's', aggregateType, aggregateId, version] | position of that event |
 * | [instanceId, 'p']                            | [lastPosition, lastCreatedAt] |
 * | [instanceId, 'r', table, id]                 | read-model row                |
 * | [instanceId, 'u', scope, value]              | holder                        |
 * | [instanceId, 't', table, key]                | ttl value; entry version = expiresAt |
 * | [instanceId, code, term, id]                 | scope of the row (index entry) as its number, '' as itself; code: one character for (table, index), lmdb-index-codes.ts (before catalog version 7: [instanceId, 'i', table, index, term, id]) |
 * | [instanceId, 'd', scope] / [instanceId, 'd', number] | the number index entries store for that scope / the scope of that number (lmdb-scope-codes.ts) |
 * | [instanceId, 'd']                            | the last scope number given   |
 * | [instanceId, 'x', table, id]                 | row summary [scope, terms per index]; a repeated term list is the earlier index's position, [scope] is -1 (lmdb-indexes.ts) |
 * | [instanceId, 'n', table, scope]              | number of rows of that scope  |
 * | [instanceId, 'v', table]                     | index epoch: a random number put when an index entry of the table changes |
 * | ['~rows', table, instanceId, id]             | null: the row exists, for the tables of LISTED_TABLES (instances with rows of a table, lmdb-listing.ts) |
 * | ['~across', table, index, term, instanceId, id] | null: an index entry of an index declared acrossInstances (kernel/indexes.ts), kept beside the instance's own (lmdb-indexes.ts) |
 * | ['~ttl', expiresAt, instanceId, table, key]  | null (expiry index for the sweeper) |
 * | ['~ttl', expiresAt, '~g', groupId]           | [instanceId, table, key, …] (expiry group) |
 * | ['~meta', key]                               | node setting                  |
 * | ['~meta', 'msgpack.structures']              | msgpackr's shared record structures (lmdb-js) |
 *
 * The expiry index is append-only on put: an overwrite or delete leaves the old index entry,
 * and the sweeper deletes a row only when its entry version still equals the indexed time,
 * so a put costs blind writes and no read. Group-committed puts (lmdb-ttl-batch.ts) share one
 * expiry-group entry per expiry time per batch instead of one index key per row: one key per
 * opaque token. Both forms are swept (a data directory written before groups keeps working).
 */

export type StoreKey = (string | number | Uint8Array)[];

/** Sorts after every string and number: the exclusive upper bound of a prefix range. */
const HIGH = new Uint8Array([0xff]);

/** The highest code point: `prefix + TOP` bounds the terms starting with `prefix`. */
const TOP = '\u{10FFFF}';

export const TTL_INDEX = '~ttl';
/** First part of the keys listing the rows of LISTED_TABLES by table and instance (lmdb-listing.ts). */
export const LISTING = '~rows';
/** First part of the keys of the indexes kept across instances (acrossKey). */
export const ACROSS = '~across';
/** Third part of an expiry-group key (where an index key has the instance id). */
const TTL_GROUP = '~g';
export const META = '~meta';
/**
 * The meta key under which lmdb-js keeps msgpackr's shared record structures: a value's object
 * shapes (property names) are stored once here and each value names its shape by number, not
 * by repeating the property names. Not data of the node: a dump leaves it out.
 */
export const STRUCTURES_META = 'msgpack.structures';

/** True when `part` can be stored in a key (no NUL); reads use it to answer "absent". */
export function isKeyPart(part: string): boolean {
  return !part.includes('\u0000');
}

function check(part: string): string {
  if (!isKeyPart(part)) throw new Error('store key part contains a NUL character');
  return part;
}

function tenant(instanceId: string): string {
  if (instanceId === '' || instanceId.startsWith('~')) {
    throw new Error('instance id must be non-empty and must not start with "~"');
  }
  return check(instanceId);
}

export function eventKey(instanceId: string, position: number): StoreKey {
  return [tenant(instanceId), 'e', position];
}

/** Events of one instance with position >= `from`. */
export function eventRange(instanceId: string, from: number): { start: StoreKey; end: StoreKey } {
  const id = tenant(instanceId);
  return { start: [id, 'e', from], end: [id, 'e', HIGH] };
}

export function headKey(instanceId: string, aggregateType: string, aggregateId: string): StoreKey {
  return [tenant(instanceId), 'h', check(aggregateType), check(aggregateId)];
}

export function streamIndexKey(instanceId: string, aggregateType: string, aggregateId: string, version: number): StoreKey {
  return [tenant(instanceId), 's', check(aggregateType), check(aggregateId), version];
}

export function streamIndexRange(instanceId: string, aggregateType: string, aggregateId: string): { start: StoreKey; end: StoreKey } {
  const prefix = [tenant(instanceId), 's', check(aggregateType), check(aggregateId)];
  return { start: prefix, end: [...prefix, HIGH] };
}

export function counterKey(instanceId: string): StoreKey {
  return [tenant(instanceId), 'p'];
}

export function recordKey(instanceId: string, table: string, id: string): StoreKey {
  return [tenant(instanceId), 'r', check(table), check(id)];
}

export function recordRange(instanceId: string, table: string): { start: StoreKey; end: StoreKey } {
  const prefix = [tenant(instanceId), 'r', check(table)];
  return { start: prefix, end: [...prefix, HIGH] };
}

export function uniqueKey(instanceId: string, scope: string, value: string): StoreKey {
  return [tenant(instanceId), 'u', check(scope), check(value)];
}

export function uniqueRange(instanceId: string, scope: string): { start: StoreKey; end: StoreKey } {
  const prefix = [tenant(instanceId), 'u', check(scope)];
  return { start: prefix, end: [...prefix, HIGH] };
}

/** Positions of the term and the row id in an index key (indexKey). */
export const INDEX_TERM = 2;
export const INDEX_ID = 3;

/** An index entry: `code` stands for the table and index (lmdb-index-codes.ts). */
export function indexKey(instanceId: string, code: string, term: string, id: string): StoreKey {
  return [tenant(instanceId), code, check(term), check(id)];
}

/** The key range of one index: all of it, the terms equal to `equals`, or those starting with `prefix`. */
export function indexRange(instanceId: string, code: string, bounds: { equals?: string; prefix?: string }): { start: StoreKey; end: StoreKey } {
  const base = [tenant(instanceId), code];
  if (bounds.equals !== undefined) return { start: [...base, check(bounds.equals)], end: [...base, bounds.equals, HIGH] };
  if (bounds.prefix !== undefined) return { start: [...base, check(bounds.prefix)], end: [...base, `${bounds.prefix}${TOP}`] };
  return { start: base, end: [...base, HIGH] };
}

/** The number index entries store for `scope` (lmdb-scope-codes.ts). */
export function scopeCodeKey(instanceId: string, scope: string): StoreKey {
  return [tenant(instanceId), 'd', check(scope)];
}

/** The scope of a number index entries store. */
export function scopeOfCodeKey(instanceId: string, code: number): StoreKey {
  return [tenant(instanceId), 'd', code];
}

/** The last scope number given in the instance. */
export function lastScopeCodeKey(instanceId: string): StoreKey {
  return [tenant(instanceId), 'd'];
}

/** Whether the second part of a tenant key is an index code (lmdb-index-codes.ts), not a table tag. */
export function isIndexCode(tag: unknown): boolean {
  if (typeof tag !== 'string' || tag.length === 0 || tag.length > 2) return false;
  const point = tag.codePointAt(0)!;
  return tag.length === String.fromCodePoint(point).length && ((point >= 0x21 && point <= 0x60) || point >= 0x100);
}

/**
 * Every index key of one instance, as stored since catalog version 7 (codes U+0021–U+0060 and
 * from U+0100 on, lmdb-index-codes.ts) and before it ([instanceId, 'i', table, index, term, id]),
 * and its scope dictionary: a rebuild clears them all, so no entry of an index that was dropped
 * or renumbered survives, and the scopes are numbered afresh.
 */
export function instanceIndexRanges(instanceId: string): { start: StoreKey; end: StoreKey }[] {
  const id = tenant(instanceId);
  return [
    { start: [id, '!'], end: [id, '`', HIGH] },
    { start: [id, '\u0100'], end: [id, HIGH] },
    { start: [id, 'i'], end: [id, 'i', HIGH] },
    { start: [id, 'd'], end: [id, 'd', HIGH] },
  ];
}

export function summaryKey(instanceId: string, table: string, id: string): StoreKey {
  return [tenant(instanceId), 'x', check(table), check(id)];
}

export function summaryRange(instanceId: string, table: string): { start: StoreKey; end: StoreKey } {
  const base = [tenant(instanceId), 'x', check(table)];
  return { start: base, end: [...base, HIGH] };
}

export function rowCountKey(instanceId: string, table: string, scope: string): StoreKey {
  return [tenant(instanceId), 'n', check(table), check(scope)];
}

export function rowCountRange(instanceId: string, table: string): { start: StoreKey; end: StoreKey } {
  const base = [tenant(instanceId), 'n', check(table)];
  return { start: base, end: [...base, HIGH] };
}

/** The table's index epoch (term columns, lmdb-term-columns.ts). */
export function indexEpochKey(instanceId: string, table: string): StoreKey {
  return [tenant(instanceId), 'v', check(table)];
}

/** The first key of the instance after `instanceId` (instances are walked by skipping ranges). */
export function afterInstance(instanceId: string): StoreKey {
  return [instanceId, HIGH];
}

/** Lists a row of a table of LISTED_TABLES (the row itself stays under recordKey). */
export function listingKey(table: string, instanceId: string, id: string): StoreKey {
  return [LISTING, check(table), tenant(instanceId), check(id)];
}

/** The listing keys of a table from the first instance after `after` ('' for the first instance). */
export function listingRange(table: string, after: string): { start: StoreKey; end: StoreKey } {
  const prefix = [LISTING, check(table)];
  return { start: after === '' ? prefix : [...prefix, after, HIGH], end: [...prefix, HIGH] };
}

/** An entry of an index declared acrossInstances, in (term, instance, id) order under its table and index. */
export function acrossKey(table: string, index: string, term: string, instanceId: string, id: string): StoreKey {
  return [ACROSS, check(table), check(index), check(term), tenant(instanceId), check(id)];
}

/** The entries of an index kept across instances with a term at most `through`, after the key `after` when given. */
export function acrossRange(table: string, index: string, through: string, after?: StoreKey): { start: StoreKey; end: StoreKey } {
  const prefix = [ACROSS, check(table), check(index)];
  return { start: after === undefined ? prefix : [...after, HIGH], end: [...prefix, through, HIGH] };
}

/** Every key of the indexes kept across instances. */
export function acrossAllRange(): { start: StoreKey; end: StoreKey } {
  return { start: [ACROSS], end: [ACROSS, HIGH] };
}

export function ttlKey(instanceId: string, table: string, key: string): StoreKey {
  return [tenant(instanceId), 't', check(table), check(key)];
}

export function ttlIndexKey(expiresAt: number, instanceId: string, table: string, key: string): StoreKey {
  return [TTL_INDEX, expiresAt, tenant(instanceId), check(table), check(key)];
}

/** Index entries with expiresAt <= now, oldest first. */
export function ttlIndexRange(now: number): { start: StoreKey; end: StoreKey } {
  return { start: [TTL_INDEX], end: [TTL_INDEX, now, HIGH] };
}

/** The expiry-group entry of one batch's rows expiring at `expiresAt`; '~' starts no instance id. */
export function ttlGroupKey(expiresAt: number, groupId: string): StoreKey {
  return [TTL_INDEX, expiresAt, TTL_GROUP, groupId];
}

/** The rows of an expiry-group entry (its key and value), or undefined when it is not one. */
export function ttlRowsOfGroup(indexKey: unknown, value: unknown): { expiresAt: number; rowKeys: StoreKey[] } | undefined {
  if (!Array.isArray(indexKey) || indexKey.length !== 4 || indexKey[2] !== TTL_GROUP || !Array.isArray(value)) return undefined;
  const expiresAt: unknown = indexKey[1];
  if (typeof expiresAt !== 'number') return undefined;
  const rowKeys: StoreKey[] = [];
  for (let i = 0; i + 2 < value.length; i += 3) {
    const [instanceId, table, key]: unknown[] = value.slice(i, i + 3);
    if (typeof instanceId === 'string' && typeof table === 'string' && typeof key === 'string') rowKeys.push([instanceId, 't', table, key]);
  }
  return { expiresAt, rowKeys };
}

/** The row key an expiry index key points at, or undefined for a malformed entry. */
export function ttlKeyOfIndex(indexKey: unknown): { expiresAt: number; rowKey: StoreKey } | undefined {
  if (!Array.isArray(indexKey) || indexKey.length !== 5) return undefined;
  const [, expiresAt, instanceId, table, key] = indexKey as unknown[];
  if (typeof expiresAt !== 'number' || typeof instanceId !== 'string') return undefined;
  if (typeof table !== 'string' || typeof key !== 'string') return undefined;
  return { expiresAt, rowKey: [instanceId, 't', table, key] };
}

export function metaKey(key: string): StoreKey {
  return [META, check(key)];
}

/** The last element of a key read back from a range (the id, value or version). */
export function lastPart(key: unknown): unknown {
  return Array.isArray(key) ? key[key.length - 1] : undefined;
}
