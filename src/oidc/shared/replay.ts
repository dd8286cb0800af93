/**
 * Single use of assertion ids (`jti`, RFC 7523 §3 item 7): the first use writes a TTL row that
 * lives until the assertion expires; a second use finds it. Reads and writes are two steps, so
 * uses racing inside this process are also serialised through an in-flight set; two nodes
 * racing within the same millisecond could both pass (documented in docs/oidc/token.md).
 */
import { createHash } from 'node:crypto';
import type { TtlStore } from '../../../actors/index.js';

const TABLE = 'oidc.jti';
const inFlight = new Set<string>();

/** True the first time `(namespace, jti)` is used; false for a replay. */
export async function useJtiOnce(ttl: TtlStore, instanceId: string, namespace: string, jti: string, expiresAt: number): Promise<boolean> {
  const key = createHash('sha256').update(`${namespace}\u0001${jti}`).digest('base64url');
  const flightKey = `${instanceId}\u0000${key}`;
  if (inFlight.has(flightKey)) return false;
  inFlight.add(flightKey);
  try {
    if ((await ttl.get(instanceId, TABLE, key)) !== undefined) return false;
    await ttl.put(instanceId, TABLE, key, 1, expiresAt);
    return true;
  } finally {
    inFlight.delete(flightKey);
  }
}
