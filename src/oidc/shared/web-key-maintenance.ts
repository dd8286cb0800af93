/**
 * Scheduled key maintenance (docs/oidc/keys.md): a timer reads, across instances, the key rings
 * whose active key is older than the rotation interval or that hold a retired key past its
 * retire window (the ring's indexes kept across instances, webKeyIndexes), rotates or prunes
 * those, and reads no other instance: a pass costs what is due, not the number of instances.
 * Safe with several processes on one store: the rotation is conditional on the active key the
 * pass saw, so only one process rotates. An instance gets its first keys when it is created (and
 * from its first request that signs or publishes keys, should that have been cut short), not here.
 */
import {
  activeWebKey,
  type ActorSystem,
  type Clock,
  expiredWebKeys,
  isRotationDue,
  type Logger,
  numberTerm,
  pruneWebKeys,
  type StoreAdapter,
  WEB_KEY_ACTIVE_SINCE,
  WEB_KEY_RETIRED_SINCE,
  webKeysKind,
} from '../../../actors/index.js';
import type { WebKeyService } from '../../crypto/web-keys.js';

export type MaintenanceAction = 'initialized' | 'rotated' | 'pruned';

export interface MaintenanceDeps {
  readonly actors: ActorSystem;
  /** Where the due rings are found (the ring's indexes kept across instances). */
  readonly store: Pick<StoreAdapter, 'readAcrossInstances'>;
  readonly webKeys: WebKeyService;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** One pass over the instances whose keys are due; returns what it did, by instance id. */
export async function runKeyMaintenance(deps: MaintenanceDeps): Promise<Map<string, MaintenanceAction>> {
  const done = new Map<string, MaintenanceAction>();
  for await (const instanceId of dueInstances(deps)) {
    try {
      const action = await maintainInstance(deps, instanceId);
      if (action === undefined) continue;
      done.set(instanceId, action);
      deps.logger.info({ instanceId, action }, 'web keys maintained');
    } catch (error) {
      deps.logger.error({ err: error, instanceId }, 'web key maintenance failed; retried on the next pass');
    }
  }
  return done;
}

/**
 * The instances whose ring may need work now, each once: an active key activated at least the
 * rotation interval ago, a retired key retired at least the retire window ago. A ring the pass
 * changes moves its entries past the bound it reads (a new active key is activated now), so it is
 * not found again in the same pass.
 */
async function* dueInstances({ store, webKeys, clock }: MaintenanceDeps): AsyncGenerator<string> {
  const now = clock.now();
  const { rotationIntervalMs, retireAfterMs } = webKeys.policy;
  const bounds: [string, number][] = [[WEB_KEY_RETIRED_SINCE, now - retireAfterMs]];
  if (rotationIntervalMs > 0) bounds.unshift([WEB_KEY_ACTIVE_SINCE, now - rotationIntervalMs]);
  const seen = new Set<string>();
  for (const [index, since] of bounds) {
    if (since < 0) continue; // nothing started before the epoch
    for await (const { instanceId } of store.readAcrossInstances(webKeysKind.table, index, numberTerm(since))) {
      if (seen.has(instanceId)) continue;
      seen.add(instanceId);
      yield instanceId;
    }
  }
}

async function maintainInstance(deps: MaintenanceDeps, instanceId: string): Promise<MaintenanceAction | undefined> {
  const { actors, webKeys, clock } = deps;
  const { rotationIntervalMs, retireAfterMs } = webKeys.policy;
  const ring = (await actors.readRecord(instanceId, webKeysKind, instanceId))?.state;
  const active = activeWebKey(ring);
  if (active === undefined) {
    await webKeys.ring(instanceId);
    return 'initialized';
  }
  const now = clock.now();
  if (isRotationDue(ring, now, rotationIntervalMs)) {
    const change = await webKeys.rotate(instanceId, { ifActiveKid: active.kid });
    return change.changed ? 'rotated' : undefined;
  }
  if (expiredWebKeys(ring, now, retireAfterMs).length > 0) {
    const change = await actors.ask({ kind: 'instance', instanceId }, pruneWebKeys, { retireAfterMs }, { creator: '' });
    return change.changed ? 'pruned' : undefined;
  }
  return undefined;
}

/** Time between passes: a twentieth of the shorter window, between 1 s and 1 h. */
export function maintenancePeriodMs(policy: { readonly rotationIntervalMs: number; readonly retireAfterMs: number }): number {
  const windows = [policy.rotationIntervalMs, policy.retireAfterMs].filter((ms) => ms > 0);
  const shortest = windows.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...windows);
  return Math.min(Math.max(Math.floor(shortest / 20), 1_000), 3_600_000);
}

export interface KeyMaintenanceTimer {
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

/** Runs a pass now and then every `maintenancePeriodMs`; passes never overlap. */
export function startKeyMaintenance(deps: MaintenanceDeps, periodMs = maintenancePeriodMs(deps.webKeys.policy)): KeyMaintenanceTimer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = runKeyMaintenance(deps)
      .catch((error: unknown) => deps.logger.error({ err: error }, 'web key maintenance pass failed'))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, periodMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
