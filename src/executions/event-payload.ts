/**
 * The body POSTed for an event condition (reference facts §3.4; key names mix cases exactly
 * as the reference sends them). `sequence` is the event's per-instance position, which is
 * also what Details.sequence reports: receivers de-duplicate on (instanceID, sequence).
 * Secret-looking payload fields (sealed keys, digests, hashes) are never sent.
 */
import type { StoredEvent } from '../../actors/index.js';

const SECRET_KEY = /secret|signingkey|digest|password|hash|privatekey/i;

export function eventPayload(event: StoredEvent): string {
  return JSON.stringify({
    aggregateID: event.aggregateId,
    aggregateType: event.aggregateType,
    resourceOwner: event.owner.id,
    instanceID: event.instanceId,
    version: 'v1',
    sequence: event.position,
    event_type: event.type,
    created_at: new Date(event.createdAt).toISOString(),
    userID: event.creator,
    event_payload: withoutSecrets(event.payload),
  });
}

export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, v]) => [key, withoutSecrets(v)]),
  );
}
