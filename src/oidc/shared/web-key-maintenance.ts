/**
 * Scheduled key maintenance (docs/oidc/keys.md): a timer walks every instance, gives keys to
 * instances without, rotates those whose active key is older than the rotation interval, and
 * removes retired keys whose window is over. Safe with several processes on one store: the
 * rotation is conditional on the active key the pass saw, so only one process rotates.
 */
import {
  activeWebKey,
  type ActorSystem,
  type Clock,
  expiredWebKeys,
  instanceKind,
  isRotationDue,
  type Logger,
  pruneWebKeys,
  SYSTEM_TENANT,
  webKeysKind,
} from '../../../actors/index.js';
import type { WebKeyService } from '../../crypto/web-keys.js';

export type MaintenanceAction = 'initialized' | 'rotated' | 'pruned';

export interface MaintenanceDeps {
  readonly actors: ActorSystem;
  readonly webKeys: WebKeyService;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** One pass over every instance; returns what it did, by instance id. */
export async function runKeyMaintenance(deps: MaintenanceDeps): Promise<Map<string, MaintenanceAction>> {
  const done = new Map<string, MaintenanceAction>();
  for await (const instance of deps.actors.scanRecords(SYSTEM_TENANT, instanceKind)) {
    try {
      const action = await maintainInstance(deps, instance.id);
      if (action === undefined) continue;
      done.set(instance.id, action);
      deps.logger.info({ instanceId: instance.id, action }, 'web keys maintained');
    } catch (error) {
      deps.logger.error({ err: error, instanceId: instance.id }, 'web key maintenance failed; retried on the next pass');
    }
  }
  return done;
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
