/**
 * The main thread of a node with several workers (docs/architecture.md, "Workers"): prepares
 * the store once (migrations, first run, index build, web keys), then starts the worker threads
 * (worker-main.ts) and supervises them. The first worker binds the ports; the others join the
 * main port with SO_REUSEPORT, so the kernel spreads connections across them. A worker that
 * exits on its own is logged and started again on the same ports; stop() drains them all. A worker
 * thread is never terminated from here (uWS aborts the process when a thread ends with sockets
 * open): every worker closes its sockets and exits by itself.
 * /metrics on any worker asks this thread, which gathers every worker's metrics and aggregates.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config/schema.js';
import { startIdleTrim } from '../observability/idle-trim.js';
import type { NodeLogger } from '../observability/logger.js';
import type { RunningNode } from '../cli/node.js';
import { prepareNode } from '../cli/prepare-node.js';
import type { FirstRunResult } from '../cli/first-run.js';
import type { WorkerLink } from './worker-feed.js';
import type { WorkerData } from './worker-main.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import { createSharedRateTable } from './shared-rate-table.js';

const ENTRY = new URL('./worker-main.js', import.meta.url);
/** Restarts of one worker within RESTART_WINDOW_MS past which it is restarted only after RESTART_BACKOFF_MS. */
const RESTART_BURST = 5;
const RESTART_WINDOW_MS = 60_000;
const RESTART_BACKOFF_MS = 5_000;
/** Beyond TESSERA_SHUTDOWN_DRAIN_MS + TESSERA_SHUTDOWN_GRACE_MS: time for a worker's flush and store close before it is told to abort. */
const STOP_SLACK_MS = 15_000;

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  ready: boolean;
  restarts: number[];
}

/** Whether node:http can bind several listeners to one port (net `reusePort`: Node 22.12+, 23.1+). */
export function nodeHasReusePort(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

export async function startWorkers(config: Config, logger: NodeLogger, count: number): Promise<RunningNode> {
  // Once, before any worker: migrations, first run and index builds must not race.
  const prepared = await prepareNode(config, logger);
  const setup: FirstRunResult = prepared.setup;
  await prepared.close();

  const link = { count, channel: `tessera-workers-${process.pid}-${randomBytes(6).toString('hex')}`, generation: new SharedArrayBuffer(4) };
  const slots: Slot[] = Array.from({ length: count }, (_, index) => ({ index, worker: undefined, ready: false, restarts: [] }));
  // uWS sets SO_REUSEPORT only on a port it was given: port 0 is resolved here, once, for every worker.
  let ports = { http: config.port === 0 ? await freePort(config.host) : config.port, grpc: config.grpcPort };
  let stopping = false;
  let nextCollect = 0;
  let running = false;
  /** In-memory rate-limit counts, shared by every worker without a message (shared-rate-table.ts). */
  const rateTable = createSharedRateTable();
  /** Collections of the workers' metrics under way: the answers so far and the workers still to answer. */
  const collecting = new Map<number, { readonly parts: unknown[]; readonly awaited: Set<number>; readonly done: (text: string) => void }>();

  const collect = (reply: (text: string) => void): void => {
    const live = slots.filter((slot) => slot.ready && slot.worker !== undefined);
    const id = nextCollect++;
    collecting.set(id, { parts: [], awaited: new Set(live.map((slot) => slot.index)), done: reply });
    for (const slot of live) slot.worker?.postMessage({ type: 'metrics-collect', id } satisfies ToWorker);
    if (live.length === 0) finishCollect(id);
  };
  const finishCollect = (id: number): void => {
    const pending = collecting.get(id);
    if (pending === undefined) return;
    collecting.delete(id);
    aggregateMetrics(pending.parts).then(pending.done, (err: unknown) => {
      logger.warn({ err }, 'worker metrics could not be aggregated');
      pending.done('');
    });
  };

  function start(slot: Slot): Promise<void> {
    const workerLink: WorkerLink = { ...link, index: slot.index };
    const data: WorkerData = { link: workerLink, port: ports.http, grpcPort: ports.grpc, rateTable };
    const worker = new Worker(ENTRY, { workerData: data });
    slot.worker = worker;
    slot.ready = false;
    let startError: string | undefined;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          slot.ready = true;
          if (slot.index === 0) ports = { http: message.httpPort, grpc: message.grpcPort };
          logger.info({ worker: slot.index, httpPort: message.httpPort }, 'worker started');
          resolve();
        } else if (message.type === 'start-failed') {
          startError = message.error;
          logger.error({ worker: slot.index, error: message.error }, 'worker could not start');
        } else if (message.type === 'metrics-request') {
          collect((text) => worker.postMessage({ type: 'metrics-result', id: message.id, text } satisfies ToWorker));
        } else if (message.type === 'metrics-json') {
          const pending = collecting.get(message.id);
          if (pending === undefined) return;
          pending.parts.push(message.json);
          pending.awaited.delete(slot.index);
          if (pending.awaited.size === 0) finishCollect(message.id);
        }
      });
      worker.on('error', (err) => logger.error({ err, worker: slot.index }, 'worker failed'));
      worker.on('exit', (code) => {
        if (slot.worker === worker) {
          slot.worker = undefined;
          slot.ready = false;
        }
        for (const [id, pending] of collecting) {
          // An exited worker answers no collection: count it out.
          if (pending.awaited.delete(slot.index) && pending.awaited.size === 0) finishCollect(id);
        }
        if (stopping) return;
        if (!running) return reject(new Error(`worker ${slot.index} exited with ${code} before the node was listening${startError === undefined ? '' : `: ${startError}`}`));
        restart(slot, code);
      });
    });
  }

  function restart(slot: Slot, code: number): void {
    const now = Date.now();
    slot.restarts = [...slot.restarts.filter((at) => now - at < RESTART_WINDOW_MS), now];
    const wait = slot.restarts.length > RESTART_BURST ? RESTART_BACKOFF_MS : 0;
    logger.error({ worker: slot.index, code, restartInMs: wait }, 'worker exited; restarting it');
    setTimeout(() => {
      if (stopping) return;
      start(slot).catch((err: unknown) => logger.error({ err, worker: slot.index }, 'worker restart failed'));
    }, wait);
  }

  // The first worker binds the ports (0 picks free ones); the others join its main port.
  try {
    await start(slots[0] as Slot);
    await Promise.all(slots.slice(1).map((slot) => start(slot)));
  } catch (err) {
    // The workers that did start close their sockets before they end (never terminated: see stopAll).
    await stopAll();
    throw err;
  }
  running = true;
  // The main thread keeps what preparing the node allocated; its first quiet interval gives it back.
  const idleTrim = startIdleTrim();
  logger.info({ httpPort: ports.http, grpcPort: ports.grpc, workers: count, dataDir: config.dataDir }, 'listening');

  const onTestKill = (): void => {
    // TESSERA_TEST_MODE only: SIGUSR2 makes the last worker fail with an uncaught error (test/e2e/workers.test.ts).
    slots[slots.length - 1]?.worker?.postMessage({ type: 'crash' } satisfies ToWorker);
  };
  if (process.env.TESSERA_TEST_MODE === '1') process.on('SIGUSR2', onTestKill);

  return {
    httpPort: ports.http,
    grpcPort: ports.grpc,
    setup,
    metricsAsJson: async () => [],
    abort: async () => undefined,
    async stop() {
      idleTrim.stop();
      await stopAll();
      process.off('SIGUSR2', onTestKill); // after: the drain test makes a worker fail while it drains
    },
  };

  /**
   * Stops every worker: each drains and exits by itself once its sockets are closed. A thread is
   * never terminated from here — uWS aborts the whole process when a thread ends with sockets
   * open. A worker still running past the drain, the grace and STOP_SLACK_MS is told to abort
   * (close every socket at once and exit).
   */
  function stopAll(): Promise<void> {
    stopping = true;
    const deadlineMs = config.shutdownDrainMs + config.shutdownGraceMs + STOP_SLACK_MS;
    return Promise.all(
      slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            const worker = slot.worker;
            if (worker === undefined) return resolve();
            const late = setTimeout(() => {
              logger.error({ worker: slot.index, afterMs: deadlineMs }, 'worker did not stop in time: closing its sockets at once');
              worker.postMessage({ type: 'abort' } satisfies ToWorker);
            }, deadlineMs);
            worker.once('exit', (code) => {
              clearTimeout(late);
              if (code !== 0) logger.warn({ worker: slot.index, code }, 'worker stopped with a failure');
              resolve();
            });
            worker.postMessage({ type: 'stop' } satisfies ToWorker);
          }),
      ),
    ).then(() => undefined);
  }
}

/** A port free right now on `host` (the kernel's pick for port 0). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Sums the workers' metrics (prom-client's cluster aggregation), except what is one value for the
 * whole process: the process metrics (CPU, memory, file descriptors) are the first worker's, and
 * `tessera_ready` is 1 only while every worker is.
 */
async function aggregateMetrics(parts: readonly unknown[]): Promise<string> {
  const adjusted = parts.map((part) =>
    (part as Record<string, unknown>[]).map((m) => {
      const name = String(m.name);
      if (name.startsWith('tessera_process_') || name === 'tessera_http_adapter') return { ...m, aggregator: 'first' };
      if (name === 'tessera_ready') return { ...m, aggregator: 'min' };
      return m;
    }),
  );
  return AggregatorRegistry.aggregate(adjusted as never).metrics();
}
