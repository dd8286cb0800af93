/**
 * Per-instance client lookup cache for the token hot path (design §11): an app by client id,
 * else a machine user by login name. An entry is valid while the instance's event position is
 * the one it was loaded at (one small store read instead of the claim and row reads), so any
 * change — a new secret, a removed key, a deactivated user, on this node or another — is seen
 * by the next request. Misses are cached the same way (the client id space is
 * attacker-controlled); the map is size-capped.
 */
import type { ActorSystem, AggregateRecord, MachineUser } from '../../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../query/app-clients.js';
import { findUserByLoginName } from '../../query/user-auth.js';

export type ResolvedClient =
  | { readonly kind: 'app'; readonly app: ClientApp; readonly secretDigest: Buffer | undefined }
  | { readonly kind: 'machine'; readonly user: AggregateRecord<MachineUser>; readonly secretDigest: Buffer | undefined }
  | { readonly kind: 'unknown' };

/**
 * The stored secret digest (base64url SHA-256) decoded once, when the client is loaded: it lives
 * in the cache entry beside the record it came from, so any change (a new secret included) that
 * reloads the entry decodes it anew. '' (no secret) → undefined.
 */
export function decodeSecretDigest(stored: string): Buffer | undefined {
  return stored === '' ? undefined : Buffer.from(stored, 'base64url');
}

export function resolvedApp(app: ClientApp): ResolvedClient {
  return { kind: 'app', app, secretDigest: decodeSecretDigest(app.app.state.secretDigest) };
}

export function resolvedMachine(user: AggregateRecord<MachineUser>): ResolvedClient {
  return { kind: 'machine', user, secretDigest: decodeSecretDigest(user.state.secretDigest) };
}

interface Entry {
  readonly client: ResolvedClient;
  /** The instance's event position when the entry was loaded. */
  readonly position: number;
}

export interface ClientCacheOptions {
  readonly actors: ActorSystem;
  readonly maxEntries?: number;
}

export interface ClientCache {
  resolve(instanceId: string, clientId: string): Promise<ResolvedClient>;
}

const UNKNOWN: ResolvedClient = Object.freeze({ kind: 'unknown' });

export function createClientCache(options: ClientCacheOptions): ClientCache {
  const maxEntries = options.maxEntries ?? 50_000;
  const entries = new Map<string, Entry>();
  return {
    async resolve(instanceId, clientId) {
      if (clientId === '' || clientId.length > 200) return UNKNOWN;
      const key = `${instanceId}\u0000${clientId}`;
      const hit = entries.get(key);
      // Read before the lookup: an event landing in between leaves an entry that is reloaded next time.
      const { position } = await options.actors.projectionState(instanceId);
      if (hit !== undefined && hit.position === position) return hit.client;
      const client = await lookupClient(options.actors, instanceId, clientId);
      if (hit === undefined && entries.size >= maxEntries) entries.delete(entries.keys().next().value as string); // size checked above
      entries.set(key, { client, position });
      return client;
    },
  };
}

async function lookupClient(actors: ActorSystem, instanceId: string, clientId: string): Promise<ResolvedClient> {
  const app = await findAppByClientId(actors, instanceId, clientId);
  if (app !== undefined) return resolvedApp(app);
  const user = await findUserByLoginName(actors, instanceId, clientId);
  if (user !== undefined && user.state.type === 'machine') return resolvedMachine(user as AggregateRecord<MachineUser>);
  return UNKNOWN;
}
