/**
 * The composition root: wires store, actors, API, HTTP front end and gRPC server into one
 * running node, and stops them in order (stop accepting → drain requests → drain actor
 * mailboxes → flush and close the store).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { instanceSettingsKind, systemClock, type Clock, type StoreAdapter } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { prepareNode } from './prepare-node.js';
import { startSweeper } from '../store/sweeper.js';
import { lazyModule } from '../runtime/lazy-module.js';
import { TenantDirectory } from '../query/tenant.js';
import { createApiCallers } from '../query/api-callers.js';
import { openApiRoutes } from '../api/openapi/route.js';
import { createLazyApi } from '../api/transport/lazy-api.js';
import type { ApiTransports } from '../api/transport/api-transports.js';
import { startGrpcServer } from '../api/transport/grpc-server.js';
import { createRouter, immediateRoutes, type Route } from '../http/router.js';
import { notFoundReply } from '../http/reply.js';
import { selectHttpAdapter, type SelectedAdapter } from '../http/select-adapter.js';
import { systemRoutes } from '../http/system-routes.js';
import { metricsRoute } from '../http/metrics-route.js';
import { createOriginResolver, withClientOrigin, type OriginOptions, type OriginResolver } from '../http/client-origin.js';
import { FairScheduler } from '../http/fair-scheduler.js';
import { createReadiness, type ReadinessCheck } from '../http/readiness.js';
import { loadTlsFiles } from '../http/tls-files.js';
import type { NodeLogger } from '../observability/logger.js';
import { createMetrics, type NodeMetrics } from '../observability/metrics.js';
import { OutboxWorker } from '../delivery/outbox.js';
import { createRequestLog } from '../observability/request-log.js';
import { startIdleTrim } from '../observability/idle-trim.js';
import type { FirstRunResult } from './first-run.js';
import { createSigner } from '../crypto/signer.js';
import { warmUpTokenPath } from '../oidc/warm-up.js';
import { oidcRoutes } from '../oidc/routes.js';
import { createOAuthDeps } from '../oidc/shared/oauth-deps.js';
import { createRateLimits, type CounterFactory } from '../http/rate-limits.js';
import type { PostgresCounters } from '../http/rate-limits-postgres.js';
import { startTracing, tracedInvoker, withTracing, type Tracer } from '../observability/tracing.js';
import { createApiAccessTokens } from '../oidc/shared/api-bearer.js';
import { adminRoutes, IMPORT_PATH } from '../api/admin/v1/admin-routes.js';
import { startKeyMaintenance } from '../oidc/shared/web-key-maintenance.js';
import { createWebKeyService, webKeyPolicy } from '../crypto/web-keys.js';
import { unencodedExecutionIdReply } from '../api/resources/actions/unencoded-execution-id.js';
import { createUiLocalesResolver } from '../oidc/shared/ui-locales.js';
import { ExecutionRuntime } from '../executions/runtime.js';
import { startClusterSync } from '../cluster/cluster-sync.js';
import type { WorkerFeed } from '../cluster/worker-feed.js';
import type { HttpHandler, HttpRequest, ImmediateHandler, ListeningServer } from '../http/types.js';

/** Path prefixes that get CORS headers (APIs and protocol endpoints, not the login UI). */
const CORS_PREFIXES = ['/resources/', '/settings/', '/admin/', '/oauth/', '/oidc/', '/.well-known/', '/platform.', '/openapi.json'];

export interface RunningNode {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly setup: FirstRunResult;
  /** This thread's metrics as prom-client JSON (a worker's share of the node's /metrics). */
  metricsAsJson(): Promise<unknown>;
  /** Closes the listeners at once, cutting in-flight requests (a worker thread that failed: uWS sockets must be closed before its thread ends). */
  abort(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a worker thread of a node with TESSERA_WORKERS > 1 is (src/cluster/workers.ts). The first
 * worker also runs the node-wide singletons (outbox, event executions, sweeper, key maintenance),
 * the gRPC port and TESSERA_METRICS_PORT; every worker serves the main port.
 */
export interface WorkerRole {
  readonly index: number;
  readonly feed: WorkerFeed;
  /** The main port (bound by the first worker; the others join it with SO_REUSEPORT). */
  readonly port: number;
  /** The gRPC port (a restarted first worker binds the one it had). */
  readonly grpcPort: number;
  /** The metrics of every worker, aggregated by the main thread (Prometheus text). */
  readonly collectMetrics: () => Promise<string>;
  /** In-memory rate-limit counts kept by the main thread for every worker (when the counts are not in PostgreSQL). */
  readonly rateCounters: CounterFactory;
}

export async function startNode(config: Config, logger: NodeLogger, clock: Clock = systemClock, worker?: WorkerRole): Promise<RunningNode> {
  /** Whether this thread runs the node-wide singletons: a node without workers, or its first worker. */
  const singletons = worker === undefined || worker.index === 0;
  // Checked before anything opens: a bad certificate stops the start with a message naming the file.
  const tls = config.tlsCertPath === undefined || config.tlsKeyPath === undefined ? undefined : loadTlsFiles(config.tlsCertPath, config.tlsKeyPath);
  const tracing = await startTracing(config);
  const tracer = tracing.tracer;
  const metrics = createMetrics(createRequestLog(logger, { mode: config.accessLog, sample: config.accessLogSample }), { instanceLabel: config.metricsInstanceLabel });
  let outbox: OutboxWorker | undefined;
  const feed = worker?.feed;
  // A message queued on another worker wakes the first worker's outbox through the worker feed.
  const wakeOutbox = singletons ? (instanceId: string) => outbox?.wake(instanceId) : (instanceId: string) => feed?.wakeOutbox(instanceId);
  const { store, actors, setup, close } = await prepareNode(config, logger, clock, tracer, metrics, wakeOutbox, feed);
  if (singletons) feed?.onWake((instanceId) => outbox?.wake(instanceId));
  outbox = new OutboxWorker({ actors, store, clock, logger, config, metrics });

  const tenants = new TenantDirectory(actors, () => clock.now());
  await tenants.load();
  const webKeys = createWebKeyService({ actors, policy: webKeyPolicy(config) });
  const signer = createSigner({ source: webKeys, sealer: actors.sealer, clock, states: actors });
  const executions = new ExecutionRuntime({ actors, store, clock, logger, network: { allowPrivateNetworks: config.outboundAllowPrivateNetworks } });
  const rateCounters = await openRateLimitCounters(config, logger);
  const limits = createRateLimits(config, {
    loadInstanceLimits: async (instanceId) => (await actors.readRecord(instanceId, instanceSettingsKind, instanceId))?.state.rateLimits,
    ...(rateCounters !== undefined ? { counters: rateCounters.counters, sharedBlocks: rateCounters.blocks } : worker === undefined || feed === undefined ? {} : { counters: worker.rateCounters, sharedBlocks: feed.blocks }),
    onRejected: (limit, instanceId) => metrics.countRateLimitRejection(limit, instanceId),
    logger,
  });
  const oauth = createOAuthDeps({ config, tenants, signer, actors, clock, logger, functions: executions, limits });
  // The RPC handlers (src/api/resources, src/api/settings) load on the first API call or /openapi.json,
  // the services' descriptors and the transports on the first call of theirs (#13).
  const rpcs = lazyModule(async () => (await import('../api/rpc-definitions.js')).apiRpcDefinitions(webKeys));
  const api = createLazyApi(async () =>
    (await import('../api/transport/api-transports.js')).createApiTransports({
      definitions: rpcs,
      services: { config, actors, tenants, clock, logger, executions, accessTokens: createApiAccessTokens(oauth), callers: createApiCallers(actors), limits },
      wrap: (invoke) => tracedInvoker(invoke, tracer),
    }),
  );

  let ready = false;
  metrics.gauge('tessera_ready', 'Whether the node accepts traffic (1): started and not draining. Dependency checks are on /readyz.', () => (ready ? 1 : 0));
  const statementCount = store.statementCount?.bind(store);
  if (statementCount !== undefined) metrics.gauge('tessera_store_statements', 'Statements this node has sent to PostgreSQL since start (each a round trip; a transaction counts its BEGIN and COMMIT).', statementCount);
  metrics.gauge('tessera_actors_loaded', 'Tenant actors currently in memory.', () => actors.loadedCount);
  metrics.gauge('tessera_outbox_pending', 'Outbox messages (mail, SMS) not yet delivered in the instances this node delivers for, as of their last scan.', () => outbox.pending());
  metrics.gauge('tessera_execution_event_lag', 'Events not yet delivered to event executions (all instances).', () => executions.eventLag());
  const http = await selectHttpAdapter(config.http);
  reportHttpAdapter(http, logger, metrics);
  // The first token must not pay lazy compilation and OpenSSL's first use (src/oidc/warm-up.ts).
  await warmUpTokenPath(actors.sealer, config);
  const readiness = createReadiness({ checks: storeChecks(store), onChange: (name, state, err) => (state === 'up' ? logger.info({ check: name }, 'readiness check up again') : logger.warn({ check: name, state, err }, 'readiness check down')) });
  const metricsOwnPort = config.metricsPort !== undefined;
  const metricsRouteOfNode = metricsRoute(metrics.registry, config.metricsToken, worker?.collectMetrics);
  if (!metricsOwnPort && config.metricsToken === undefined) logger.warn({}, 'GET /metrics answers anyone who reaches the main port; set TESSERA_METRICS_TOKEN or TESSERA_METRICS_PORT (docs/operations/observability.md)');
  const routes = [...systemRoutes({ metrics: metricsOwnPort ? undefined : metricsRouteOfNode, isReady: () => ready, readiness, http: { adapter: http.adapter.name, requested: http.requested } }), ...openApiRoutes(async () => ({ services: (await api.transports()).services, definitions: await rpcs() })), ...oidcRoutes({ config, tenants, signer, oauth, uiLocales: createUiLocalesResolver(actors) }), ...adminRoutes({ dataDir: config.dataDir, actors, tenants, clock, logger, accessTokens: createApiAccessTokens(oauth), gcsEndpoint: config.gcsEndpoint, importMaxBytes: config.importMaxBodyBytes })];
  const router = createRouter(routes, { deferred: [api.jsonRoutes], fallback: api.connect, corsPathPrefixes: CORS_PREFIXES, notFound: (req) => unencodedExecutionIdReply(req) ?? notFoundReply });
  const origin = { trustedProxies: config.trustedProxies, defaultScheme: tls !== undefined || config.externalSecure ? 'https' : 'http' } as const;
  const fair = config.fairScheduler ? createFairScheduler(config, tenants, origin.trustedProxies.length === 0 ? undefined : createOriginResolver(origin)) : undefined;
  if (fair !== undefined) {
    metrics.gauge('tessera_http_in_flight', 'Requests the main HTTP port is handling (fair scheduler: TESSERA_FAIR_MAX_IN_FLIGHT).', () => fair.inFlight);
    metrics.gauge('tessera_http_queued', 'Requests waiting in their instance\'s queue for admission (fair scheduler).', () => fair.queued);
    metrics.gauge('tessera_http_queue_refused', 'Requests answered 503 because their instance\'s queue was full, since start (TESSERA_FAIR_QUEUE_CAPACITY).', () => fair.refused);
    metrics.gauge('tessera_http_queue_expired', 'Requests answered 503 because they waited in their instance\'s queue past TESSERA_FAIR_MAX_WAIT_MS, since start.', () => fair.expired);
  }
  const immediate = immediateHandler(routes, origin, tracer, feed);
  const listener = await http.adapter.listen(
    caughtUp(withClientOrigin(withTracing(router, tracer), origin), feed),
    { host: config.host, port: worker?.port ?? config.port, ...(worker === undefined ? {} : { worker: String(worker.index), reusePort: true }), maxBodyBytes: config.maxBodyBytes, bodyLimits: { [IMPORT_PATH]: config.importMaxBodyBytes }, bodyTimeoutMs: config.bodyTimeoutMs, maxHeaderCount: config.maxHeaderCount, maxHeaderBytes: config.maxHeaderBytes, tls, ...(fair === undefined ? {} : { fair }), ...(immediate === undefined ? {} : { immediate }) },
    metrics.httpObserver,
  );
  // Whatever fails from here on closes the listeners before the error goes on: a worker thread that
  // ends with uWS sockets open aborts the whole process (src/cluster/worker-main.ts).
  let metricsListener: ListeningServer | undefined;
  let grpc: Awaited<ReturnType<typeof startGrpcServer>> | undefined;
  let sweeper: ReturnType<typeof startSweeper> | undefined;
  let keyMaintenance: ReturnType<typeof startKeyMaintenance> | undefined;
  let cluster: Awaited<ReturnType<typeof startClusterSync>>;
  try {
    metricsListener = config.metricsPort === undefined || !singletons ? undefined : await http.adapter.listen(createRouter([metricsRouteOfNode], { corsPathPrefixes: [] }), { host: config.host, port: config.metricsPort, maxBodyBytes: 1024, bodyTimeoutMs: config.bodyTimeoutMs, maxHeaderCount: config.maxHeaderCount, maxHeaderBytes: config.maxHeaderBytes });
    grpc = !singletons ? undefined : await startGrpcServer({ host: config.host, port: worker?.grpcPort ?? config.grpcPort, api: async () => grpcApi(await api.transports(), feed), tls, origin: createOriginResolver(origin), observer: metrics.httpObserver, onCallFailed: (err, call) => logger.error({ err, ...call }, 'grpc call failed') });
    sweeper = singletons ? startSweeper(store, clock, config.sweepIntervalMs, logger) : undefined;
    keyMaintenance = singletons ? startKeyMaintenance({ actors, store, webKeys, clock, logger }) : undefined;
    if (singletons) {
      await executions.start();
      outbox.start();
    }
    // Other nodes' writes drop this node's caches (PostgreSQL change feed; nothing on LMDB).
    cluster = await startClusterSync({ store, actors, tenants, logger, limits, observeLag: (seconds) => metrics.observeChangeFeedLag(seconds) });
  } catch (err) {
    await Promise.all([listener.close(0), metricsListener?.close(0), grpc?.close(0)]);
    throw err;
  }
  // Start-up left the young generation at its maximum: the first quiet interval gives it back.
  const idleTrim = startIdleTrim();
  ready = true;
  logger.info({ httpPort: listener.port, grpcPort: grpc?.port ?? 0, metricsPort: metricsListener?.port, http: http.adapter.name, uwsPackage: http.uwsPackage, tls: tls !== undefined, dataDir: config.dataDir }, worker === undefined ? 'listening' : 'worker listening');

  return {
    httpPort: listener.port,
    grpcPort: grpc?.port ?? 0,
    setup,
    metricsAsJson: () => metrics.registry.getMetricsAsJSON(),
    async abort() {
      ready = false;
      await Promise.all([listener.close(0), grpc?.close(0), metricsListener?.close(0)]);
    },
    async stop() {
      ready = false; // /readyz answers 503 from here on, while the listeners still serve
      if (config.shutdownDrainMs > 0) {
        logger.info({ drainMs: config.shutdownDrainMs }, 'draining: /readyz answers 503 until the listeners close');
        await delay(config.shutdownDrainMs);
      }
      await Promise.all([listener.close(config.shutdownGraceMs), grpc?.close(config.shutdownGraceMs), metricsListener?.close(0)]);
      idleTrim.stop();
      fair?.close();
      sweeper?.stop();
      await keyMaintenance?.stop();
      await executions.stop();
      await outbox.stop();
      cluster.stop();
      await rateCounters?.close();
      await close();
      feed?.close();
      await tracing.shutdown();
    },
  };
}

/**
 * Shared rate-limit counts in PostgreSQL (TESSERA_RATE_LIMIT_STORE, default postgres on a
 * PostgreSQL node), on a small pool of their own next to the store's; undefined: in memory.
 * The PostgreSQL modules load only here, so an LMDB node never loads them (idle memory, #13).
 */
async function openRateLimitCounters(config: Config, logger: NodeLogger): Promise<PostgresCounters | undefined> {
  const kind = config.rateLimitStore ?? (config.databaseUrl === undefined ? 'memory' : 'postgres');
  if (!config.rateLimits || kind !== 'postgres' || config.databaseUrl === undefined) return undefined;
  const [{ connectPostgres }, { createPostgresCounters }] = await Promise.all([import('../store/postgres-store.js'), import('../http/rate-limits-postgres.js')]);
  const sql = connectPostgres({ url: config.databaseUrl, schema: config.databaseSchema, logger, maxConnections: 2 });
  const counters = createPostgresCounters(sql, { logger });
  return {
    counters: counters.counters,
    sync: counters.sync,
    blocks: counters.blocks,
    async close() {
      await counters.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * Makes the HTTP adapter visible: a metric always, and a warning when uWebSockets.js was asked
 * for but node:http serves (every candidate's reason, the Node version and glibc named).
 */
function reportHttpAdapter(http: SelectedAdapter, logger: NodeLogger, metrics: NodeMetrics): void {
  metrics.info('tessera_http_adapter', 'HTTP adapter serving this node (1), with the one configured (TESSERA_HTTP); adapter="node" with requested="uws" is the slower fallback.', { adapter: http.adapter.name, requested: http.requested });
  if (http.fallbackReasons === undefined) return;
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  logger.warn(
    { requested: http.requested, adapter: http.adapter.name, reasons: http.fallbackReasons, node: process.versions.node, abi: process.versions.modules, glibc: header?.glibcVersionRuntime },
    'uWebSockets.js is unavailable on this platform: serving HTTP with node:http, at roughly half the throughput per CPU (docs/operations/running.md#http-adapter)',
  );
}

/** The gRPC port's services and invoker; on a worker, each call first applies what the other workers committed. */
function grpcApi(transports: ApiTransports, feed: WorkerFeed | undefined): ApiTransports {
  const { services, invoke } = transports;
  return feed === undefined ? transports : { services, invoke: (...args) => (feed.catchUp(), invoke(...args)) };
}

/** A worker's handler: first applies what the other workers committed (one Atomics.load when nothing did). */
function caughtUp<R = ReturnType<HttpHandler>>(handler: (request: HttpRequest) => R, feed: WorkerFeed | undefined): (request: HttpRequest) => R {
  if (feed === undefined) return handler;
  return (request) => {
    feed.catchUp();
    return handler(request);
  };
}

/**
 * The routes' replies from memory, answered before admission (router.ts `immediateRoutes`), with
 * the same client origin and worker catch-up as the handler. None with tracing (a span per
 * request needs the handler's path) or trusted proxies (the origin is resolved once per request,
 * by the handler's wrapper; resolving it on both paths would read the rewritten Host again).
 */
function immediateHandler(routes: readonly Route[], origin: OriginOptions, tracer: Tracer, feed: WorkerFeed | undefined): ImmediateHandler | undefined {
  const immediate = immediateRoutes(routes, { corsPathPrefixes: CORS_PREFIXES });
  if (immediate === undefined || tracer.enabled || origin.trustedProxies.length !== 0) return undefined;
  return caughtUp(withClientOrigin(immediate, origin), feed);
}

/** Requests that never wait for admission: probes and metrics must answer while the node is busy. */
const NEVER_WAIT = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The fair scheduler of the main port: one lane per instance of the Host (known hosts only), one
 * for every unknown host. Without trusted proxies the Host header is the request's own (no
 * origin to resolve, no peer address read).
 */
function createFairScheduler(config: Config, tenants: TenantDirectory, origin: OriginResolver | undefined): FairScheduler {
  return new FairScheduler({
    maxInFlight: config.fairMaxInFlight,
    queueCapacity: config.fairQueueCapacity,
    turnBudget: config.fairTurnBudget,
    contendedTurnBudget: config.fairContendedTurnBudget,
    maxWaitMs: config.fairMaxWaitMs,
    lagMs: config.fairLagMs,
    laneOf: (req) => {
      if (NEVER_WAIT.has(req.path)) return undefined;
      const host = origin === undefined ? req.headers['host'] : origin(req.remoteAddress, req.headers).host;
      return host === undefined ? '' : (tenants.knownHost(host)?.id ?? '');
    },
  });
}

/** The store's readiness check, when it can be down while the node runs (PostgreSQL). */
function storeChecks(store: StoreAdapter): ReadinessCheck[] {
  const checkHealth = store.checkHealth;
  return checkHealth === undefined ? [] : [{ name: 'store', check: (timeoutMs) => checkHealth(timeoutMs) }];
}
