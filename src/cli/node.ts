/**
 * The composition root: wires store, actors, API, HTTP front end and gRPC server into one
 * running node, and stops them in order (stop accepting → drain requests → drain actor
 * mailboxes → flush and close the store).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ActorSystem, createIdGenerator, systemClock, UNIQUE_SCOPES, type Clock, type StoreAdapter } from '../../actors/index.js';
import type { DescService } from '@bufbuild/protobuf';
import type { Config } from '../config/schema.js';
import { createSecretSealer } from '../crypto/secret-sealer.js';
import { openLmdbStore } from '../store/lmdb-store.js';
import { startSweeper } from '../store/sweeper.js';
import { createInvoker } from '../api/invoker.js';
import { TenantDirectory } from '../api/tenant.js';
import { organizationRpcs } from '../api/resources/organizations/index.js';
import { PlatformOrganizations } from '../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { createJsonRoutes } from '../api/transport/json-transcoder.js';
import { createConnectFallback } from '../api/transport/connect-bridge.js';
import { startGrpcServer } from '../api/transport/grpc-server.js';
import { createRouter } from '../http/router.js';
import { selectHttpAdapter } from '../http/select-adapter.js';
import { systemRoutes } from '../http/system-routes.js';
import type { NodeLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { ensureFirstRun, type FirstRunResult } from './first-run.js';
import { loadMasterKey } from './master-key.js';

/** Every service this node serves on all transports. */
export const SERVICES: readonly DescService[] = [PlatformOrganizations];

/** Path prefixes that get CORS headers (APIs and protocol endpoints, not the login UI). */
const CORS_PREFIXES = ['/resources/', '/settings/', '/admin/', '/oauth/', '/oidc/', '/.well-known/', '/platform.'];

export interface RunningNode {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly setup: FirstRunResult;
  stop(): Promise<void>;
}

/** Store, actors and first-run setup: everything but the listeners (used by `init` alone). */
export interface PreparedNode {
  readonly store: StoreAdapter;
  readonly actors: ActorSystem;
  readonly setup: FirstRunResult;
  close(): Promise<void>;
}

export async function prepareNode(config: Config, logger: NodeLogger, clock: Clock = systemClock): Promise<PreparedNode> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const masterKey = loadMasterKey(config);
  if (masterKey.origin === 'generated') {
    logger.warn({ path: masterKey.path }, 'generated a master key next to the data; set TESSERA_MASTERKEY from a secret store in production');
  }
  const store = openLmdbStore({ path: join(config.dataDir, 'lmdb'), logger, clock });
  const actors = new ActorSystem({
    store,
    clock,
    ids: createIdGenerator(() => clock.now()),
    sealer: createSecretSealer(masterKey.key),
    logger,
    idleMs: config.actorIdleMs,
    uniqueScopes: UNIQUE_SCOPES,
  });
  const setup = await ensureFirstRun({ store, actors, config, now: () => clock.now() });
  if (setup.tokenFile !== undefined) logger.info({ tokenFile: setup.tokenFile, instanceId: setup.plan.instanceId }, 'first run: admin token written');
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

export async function startNode(config: Config, logger: NodeLogger, clock: Clock = systemClock): Promise<RunningNode> {
  const { store, actors, setup, close } = await prepareNode(config, logger, clock);

  const tenants = new TenantDirectory(actors, () => clock.now());
  await tenants.load();
  const invoke = createInvoker([...organizationRpcs], { config, actors, tenants, clock, logger });

  let ready = false;
  const metrics = createMetrics((err, request) => logger.error({ err, path: request?.path }, 'request failed'));
  metrics.gauge('tessera_actors_loaded', 'Tenant actors currently in memory.', () => actors.loadedCount);
  const routes = [...systemRoutes({ metrics: metrics.registry, isReady: () => ready }), ...createJsonRoutes(SERVICES, invoke)];
  const router = createRouter(routes, { fallback: createConnectFallback(SERVICES, invoke), corsPathPrefixes: CORS_PREFIXES });
  const adapter = await selectHttpAdapter(config.http, (msg, err) => logger.warn({ err }, msg));
  const http = await adapter.listen(
    router,
    { host: config.host, port: config.port, maxBodyBytes: config.maxBodyBytes, bodyTimeoutMs: config.bodyTimeoutMs },
    metrics.httpObserver,
  );
  const grpc = await startGrpcServer({ host: config.host, port: config.grpcPort, services: SERVICES, invoke });
  const sweeper = startSweeper(store, clock, config.sweepIntervalMs, logger);
  ready = true;
  logger.info({ httpPort: http.port, grpcPort: grpc.port, http: adapter.name, dataDir: config.dataDir }, 'listening');

  return {
    httpPort: http.port,
    grpcPort: grpc.port,
    setup,
    async stop() {
      ready = false;
      await Promise.all([http.close(config.shutdownGraceMs), grpc.close(config.shutdownGraceMs)]);
      sweeper.stop();
      await close();
    },
  };
}
