/**
 * A worker thread of a node with several workers (started by workers.ts): reads the same
 * configuration and clock as the main thread, joins the node's worker feed, and runs the serving
 * part of a node (startNode with a WorkerRole) until the main thread says stop. It always ends by
 * itself, its listeners closed first: exit code 0 after a stop, 1 after a failure.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../observability/logger.js';
import { clockFromEnv } from '../cli/test-clock.js';
import { startNode, type RunningNode } from '../cli/node.js';
import { joinWorkerFeed, type WorkerLink } from './worker-feed.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import { sharedCounters, type SharedRateTable } from './shared-rate-table.js';

export interface WorkerData {
  readonly link: WorkerLink;
  readonly port: number;
  readonly grpcPort: number;
  /** The node's in-memory rate-limit counts, shared by every worker. */
  readonly rateTable: SharedRateTable;
}

async function run(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('worker-main runs in a worker thread');
  const data = workerData as WorkerData;
  const send = (message: FromWorker): void => port.postMessage(message);
  const config = loadConfig();
  // Synchronous: the thread exits right after it logs why (createLogger's note).
  const logger = createLogger(config.logLevel, { synchronous: true }).child({ worker: data.link.index });
  const { clock } = clockFromEnv(process.env);
  const feed = joinWorkerFeed(data.link, logger);
  let nextRequest = 0;
  const waiting = new Map<number, (text: string) => void>();
  const collectMetrics = (): Promise<string> =>
    new Promise((resolve) => {
      const id = nextRequest++;
      waiting.set(id, resolve);
      send({ type: 'metrics-request', id });
    });
  const rateCounters = sharedCounters(data.rateTable, {
    workers: data.link.count,
    onFallback: () => logger.warn({ workers: data.link.count }, 'rate limits: the shared count table is full; this worker counts the overflow alone with limit / workers'),
  });
  // The node, once started; until then a stop or a failure is remembered and acted on when the start ends.
  let node: RunningNode | undefined;
  let stopping = false;
  let failed = false;
  // Ending this thread with uWS sockets open aborts the whole process (docs/architecture.md,
  // "Workers"): every way out closes the listeners first, and the main thread never terminates a
  // worker. A failure cuts the in-flight requests (abort); a stop drains them (stop).
  const exitAfter = (closing: Promise<void>, code: number): void => {
    closing.then(
      () => {
        logger.flush();
        process.exit(code);
      },
      (err: unknown) => {
        logger.error({ err }, 'worker could not close its listeners');
        logger.flush();
        process.exit(1);
      },
    );
  };
  const fail = (err: unknown): void => {
    logger.error({ err }, 'worker failed: closing its listeners and exiting');
    logger.flush();
    failed = true;
    if (node !== undefined) exitAfter(node.abort(), 1); // also while it drains: abort cuts the grace short
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'crash' && process.env.TESSERA_TEST_MODE === '1') {
      setImmediate(() => {
        throw new Error('worker crash requested (TESSERA_TEST_MODE, SIGUSR2)');
      });
    } else if (message.type === 'metrics-result') {
      waiting.get(message.id)?.(message.text);
      waiting.delete(message.id);
    } else if (message.type === 'metrics-collect') {
      if (node === undefined) return send({ type: 'metrics-json', id: message.id, json: [] });
      node.metricsAsJson().then(
        (json) => send({ type: 'metrics-json', id: message.id, json }),
        (err: unknown) => {
          logger.warn({ err }, 'worker metrics could not be collected');
          send({ type: 'metrics-json', id: message.id, json: [] });
        },
      );
    } else if (message.type === 'stop' && !stopping) {
      stopping = true;
      if (node !== undefined && !failed) exitAfter(node.stop(), 0);
    } else if (message.type === 'abort') {
      failed = true;
      if (node !== undefined) exitAfter(node.abort(), 1);
    }
  });
  // startNode closes its listeners itself when it fails part-way (then run() rejects and the thread exits).
  const started = await startNode(config, logger, clock, { index: data.link.index, feed, port: data.port, grpcPort: data.grpcPort, collectMetrics, rateCounters });
  node = started;
  if (failed) return exitAfter(started.abort(), 1);
  if (stopping) return exitAfter(started.stop(), 0);
  send({ type: 'ready', httpPort: started.httpPort, grpcPort: started.grpcPort });
}

run().catch((err: unknown) => {
  // The main thread logs why (a worker's own stderr may not be written out before the thread ends).
  parentPort?.postMessage({ type: 'start-failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies FromWorker);
  process.exit(1);
});
