/**
 * How the LMDB adapter stores one event (a compact array, versioned by its first element);
 * shared by the adapter and its dump/load (lmdb-dump.ts).
 */
import type { StoredEvent } from '../../actors/index.js';

const EVENT_FORMAT = 1;

/** [format, type, aggregateType, aggregateId, version, ownerType, ownerId, creator, createdAt, payload] */
type EventRecord = readonly [number, string, string, string, number, string, string, string, number, unknown];

export function encodeEvent(e: StoredEvent): EventRecord {
  return [EVENT_FORMAT, e.type, e.aggregateType, e.aggregateId, e.version, e.owner.type, e.owner.id, e.creator, e.createdAt, e.payload];
}

export function decodeEvent(instanceId: string, position: number, raw: unknown): StoredEvent {
  if (!Array.isArray(raw) || raw[0] !== EVENT_FORMAT) throw new Error(`unknown event record format at position ${position}`);
  const [, type, aggregateType, aggregateId, version, ownerType, ownerId, creator, createdAt, payload] = raw as unknown as EventRecord;
  const owner = { type: ownerType as StoredEvent['owner']['type'], id: ownerId };
  return { instanceId, aggregateType, aggregateId, type, owner, creator, payload, version, position, createdAt };
}
