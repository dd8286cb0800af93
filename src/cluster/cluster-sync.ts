/**
 * Keeps a node's in-memory state in step with the other nodes sharing its PostgreSQL store:
 * subscribes to the store's change feed and registers what each cache drops (docs/operations/
 * postgres.md, "Change feed"). A store without a feed (LMDB, one process) needs nothing.
 */
import {
  instanceKind,
  instanceSettingsKind,
  SYSTEM_TENANT,
  type ActorSystem,
  type Logger,
  type StoreAdapter,
} from '../../actors/index.js';
import type { TenantDirectory } from '../query/tenant.js';
import type { RateLimits } from '../http/rate-limits.js';
import { CacheInvalidations, onStreamTypes } from './cache-invalidation.js';

export interface ClusterSyncDeps {
  readonly store: StoreAdapter;
  readonly actors: ActorSystem;
  readonly tenants: TenantDirectory;
  readonly logger: Logger;
  /** The instances' rate limits (their settings live on the instance settings aggregate); none: nothing cached. */
  readonly limits?: Pick<RateLimits, 'invalidate'>;
  /** Told how many seconds after its commit each change reached this node (the change-feed lag metric). */
  readonly observeLag?: (seconds: number) => void;
}

export interface ClusterSync {
  stop(): void;
}

/** Registers every cache of a node; resolves once the feed listens (before the node is ready). */
export async function startClusterSync(deps: ClusterSyncDeps): Promise<ClusterSync> {
  const feed = deps.store.changes;
  if (feed === undefined) return { stop: () => undefined };
  const registry = createNodeInvalidations(deps);
  const observeLag = deps.observeLag;
  const unsubscribe = await feed.subscribe((change) => {
    registry.dispatch(change);
    if (observeLag !== undefined && change.committedAt !== undefined) observeLag((Date.now() - change.committedAt) / 1_000);
  });
  return { stop: unsubscribe };
}

export function createNodeInvalidations(deps: Omit<ClusterSyncDeps, 'store'>): CacheInvalidations {
  const { actors, tenants, logger, limits } = deps;
  const registry = new CacheInvalidations(logger);
  // Actors and each instance's state: the next command reads the changed aggregates fresh (no
  // lost append first); resolved settings, the signing key ring and the execution plan computed
  // from older stream versions go (actors/instance/read-state.ts).
  registry.register('actors', (change) => actors.forget(change.instanceId, change.streams));
  // Host → instance map and the blocked flag: instances live in the system tenant.
  registry.register(
    'tenants',
    onStreamTypes([instanceKind.type], (instanceId, streams) => {
      if (instanceId !== SYSTEM_TENANT) return;
      const refreshed = streams === undefined ? tenants.load() : Promise.all(streams.map((s) => tenants.refresh(s.aggregateId)));
      refreshed.catch((err: unknown) => logger.warn({ err }, 'tenant directory refresh failed'));
    }),
  );
  // Rate limits an instance set for itself (instance settings; the system tenant's `instance` streams are instances).
  if (limits !== undefined) {
    registry.register(
      'rate limits',
      onStreamTypes([instanceSettingsKind.type], (instanceId) => {
        if (instanceId !== SYSTEM_TENANT) limits.invalidate(instanceId);
      }),
    );
  }
  return registry;
}
