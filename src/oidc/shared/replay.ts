/**
 * Single use of assertion ids (`jti`, RFC 7523 §3 item 7): the first use writes a TTL row that
 * lives until the assertion expires; a second use finds it. On a store shared by several
 * nodes (PostgreSQL) the write is one atomic `ttl.claim` with a fresh holder, so of two nodes
 * racing with the same jti exactly one wins. A single-process store (LMDB) has no claim: a
 * read then a write, with racing uses inside the process serialised through an in-flight set.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { TtlStore } from '../../../actors/index.js';

const TABLE = 'oidc.jti';
const inFlight = new Set<string>();

/** True the first time `(namespace, jti)` is used; false for a replay. */
export async function useJtiOnce(ttl: TtlStore, instanceId: string, namespace: string, jti: string, expiresAt: number): Promise<boolean> {
  const key = createHash('sha256').update(`${namespace}\u0001${jti}`).digest('base64url');
  // A holder nobody else has: the claim succeeds only where no live row exists.
  if (ttl.claim !== undefined) return ttl.claim(instanceId, TABLE, key, randomUUID(), expiresAt);
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
