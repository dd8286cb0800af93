/**
 * Per-instance client lookup cache for the token hot path (design §11): an app by client id,
 * else a machine user by login name. A hit younger than `refreshMs` is a Map lookup; after that
 * the client is resolved again, so a changed secret, key, auth method or state (a new row
 * version) is seen within `refreshMs` on every node. Misses are cached the same way
 * (the client id space is attacker-controlled), and the map is size-capped.
 */
import type { ActorSystem, AggregateRecord, MachineUser } from '../../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../api/shared/app-clients.js';
import { findUserByLoginName } from '../../api/shared/user-auth.js';

export type ResolvedClient =
  | { readonly kind: 'app'; readonly app: ClientApp }
  | { readonly kind: 'machine'; readonly user: AggregateRecord<MachineUser> }
  | { readonly kind: 'unknown' };

interface Entry {
  readonly client: ResolvedClient;
  readonly loadedAt: number;
}

export interface ClientCacheOptions {
  readonly actors: ActorSystem;
  readonly now: () => number;
  readonly refreshMs?: number;
  readonly maxEntries?: number;
}

export interface ClientCache {
  resolve(instanceId: string, clientId: string): Promise<ResolvedClient>;
}

const UNKNOWN: ResolvedClient = Object.freeze({ kind: 'unknown' });

export function createClientCache(options: ClientCacheOptions): ClientCache {
  const refreshMs = options.refreshMs ?? 1_000;
  const maxEntries = options.maxEntries ?? 50_000;
  const entries = new Map<string, Entry>();
  return {
    async resolve(instanceId, clientId) {
      if (clientId === '' || clientId.length > 200) return UNKNOWN;
      const key = `${instanceId}\u0000${clientId}`;
      const hit = entries.get(key);
      if (hit !== undefined && options.now() - hit.loadedAt < refreshMs) return hit.client;
      const client = await lookupClient(options.actors, instanceId, clientId);
      if (hit === undefined && entries.size >= maxEntries) entries.delete(entries.keys().next().value as string); // size checked above
      entries.set(key, { client, loadedAt: options.now() });
      return client;
    },
  };
}

async function lookupClient(actors: ActorSystem, instanceId: string, clientId: string): Promise<ResolvedClient> {
  const app = await findAppByClientId(actors, instanceId, clientId);
  if (app !== undefined) return { kind: 'app', app };
  const user = await findUserByLoginName(actors, instanceId, clientId);
  if (user !== undefined && user.state.type === 'machine') return { kind: 'machine', user: user as AggregateRecord<MachineUser> };
  return UNKNOWN;
}
