/**
 * Store, actors and first-run setup of a node: what `init` runs alone, what every serving thread
 * runs before its listeners, and all that the main thread of a node with workers needs before it
 * starts them. Kept apart from node.ts so that main thread loads none of the serving modules
 * (OAuth/OIDC endpoints, login UI, HTTP front end; idle memory, #13).
 */
import { mkdirSync } from 'node:fs';
import { ActorSystem, createIdGenerator, systemClock, UNIQUE_SCOPES, type Clock, type StoreAdapter } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { createSecretSealer } from '../crypto/secret-sealer.js';
import { ensureWebKeys } from '../crypto/web-keys.js';
import { notifyOnQueued } from '../delivery/outbox.js';
import type { NodeLogger } from '../observability/logger.js';
import { timeStoreAppends } from '../observability/store-timing.js';
import { askTracer, NO_TRACER, tracedStore, type Tracer } from '../observability/tracing.js';
import type { WorkerFeed } from '../cluster/worker-feed.js';
import { ensureFirstRun, type FirstRunResult } from './first-run.js';
import { loadMasterKey } from './master-key.js';
import { openConfiguredStore } from './open-store.js';

/** Store, actors and first-run setup: everything but the listeners (used by `init` alone). */
export interface PreparedNode {
  readonly store: StoreAdapter;
  readonly actors: ActorSystem;
  readonly setup: FirstRunResult;
  close(): Promise<void>;
}

/** What a started node observes of the store (metrics). */
export interface StoreObserver {
  observeAppend(seconds: number, failed: boolean): void;
}

/** `onMessageQueued`: called after an append that queued an outbox message (wakes the outbox worker). */
export async function prepareNode(config: Config, logger: NodeLogger, clock: Clock = systemClock, tracer: Tracer = NO_TRACER, observer?: StoreObserver, onMessageQueued?: (instanceId: string) => void, feed?: WorkerFeed): Promise<PreparedNode> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const masterKey = loadMasterKey(config);
  if (masterKey.origin === 'generated') {
    logger.warn({ path: masterKey.path }, 'generated a master key next to the data; set TESSERA_MASTERKEY from a secret store in production');
  }
  if (config.databaseUrl !== undefined && masterKey.origin !== 'environment') {
    logger.warn({ path: masterKey.path }, 'PostgreSQL store with a master key file: every node sharing the database needs the same key; set TESSERA_MASTERKEY');
  }
  const raw = await openConfiguredStore(config, { logger, clock });
  // Worker threads: this worker's commits reach the others before their replies leave (worker-feed.ts).
  const opened = feed === undefined ? raw : feed.wrap(raw);
  const timed = tracedStore(observer === undefined ? opened : timeStoreAppends(opened, observer.observeAppend), tracer);
  const store = onMessageQueued === undefined ? timed : notifyOnQueued(timed, onMessageQueued);
  const actors = new ActorSystem({
    store,
    ...(tracer.enabled ? { traceAsk: askTracer(tracer) } : {}),
    clock,
    ids: createIdGenerator(() => clock.now()),
    sealer: createSecretSealer(masterKey.key),
    logger,
    idleMs: config.actorIdleMs,
    mailboxCapacity: config.actorMailboxCapacity,
    instanceQueueCapacity: config.actorInstanceQueueCapacity,
    uniqueScopes: UNIQUE_SCOPES,
  });
  const setup = await ensureFirstRun({ store, actors, config, now: () => clock.now() });
  if (setup.tokenFile !== undefined) logger.info({ tokenFile: setup.tokenFile, instanceId: setup.plan.instanceId }, 'first run: admin token written');
  await ensureWebKeys(actors, setup.plan.instanceId, { algorithm: config.signingAlgorithm });
  return {
    store,
    actors,
    setup,
    async close() {
      await actors.stop();
      await store.close();
    },
  };
}
