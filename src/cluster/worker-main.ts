/**
 * A worker thread of a node with TESSERA_WORKERS > 1 (started by workers.ts): reads the same
 * configuration and clock as the main thread, joins the node's worker feed, and runs the serving
 * part of a node (startNode with a WorkerRole) until the main thread says stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../observability/logger.js';
import { clockFromEnv } from '../cli/test-clock.js';
import { startNode } from '../cli/node.js';
import { joinWorkerFeed, type WorkerLink } from './worker-feed.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import { workerCounters } from './worker-rate-limits.js';

export interface WorkerData {
  readonly link: WorkerLink;
  readonly port: number;
  readonly grpcPort: number;
}

async function run(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('worker-main runs in a worker thread');
  const data = workerData as WorkerData;
  const send = (message: FromWorker): void => port.postMessage(message);
  const config = loadConfig();
  const logger = createLogger(config.logLevel).child({ worker: data.link.index });
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
  const rates = workerCounters(port);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'rate-result') rates.answer(message);
  });
  const node = await startNode(config, logger, clock, { index: data.link.index, feed, port: data.port, grpcPort: data.grpcPort, collectMetrics, rateCounters: rates.counters });
  let stopping = false;
  // An uncaught failure ends this worker (the main thread starts a new one), but only after its
  // sockets are closed: a thread ending with uWS sockets open aborts the whole process.
  const fail = (err: unknown): void => {
    logger.error({ err }, 'worker failed: closing its listeners and exiting');
    logger.flush();
    const exit = (): never => process.exit(1);
    node.abort().then(exit, exit);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'crash' && process.env.TESSERA_TEST_MODE === '1') {
      setImmediate(() => {
        throw new Error('worker crash requested (TESSERA_TEST_MODE, SIGUSR2)');
      });
    }
    if (message.type === 'metrics-result') {
      waiting.get(message.id)?.(message.text);
      waiting.delete(message.id);
    } else if (message.type === 'metrics-collect') {
      node.metricsAsJson().then(
        (json) => send({ type: 'metrics-json', id: message.id, json }),
        (err: unknown) => {
          logger.warn({ err }, 'worker metrics could not be collected');
          send({ type: 'metrics-json', id: message.id, json: [] });
        },
      );
    } else if (message.type === 'stop' && !stopping) {
      stopping = true;
      node.stop().then(
        () => {
          logger.flush();
          send({ type: 'stopped' });
          port.close();
        },
        (err: unknown) => {
          logger.error({ err }, 'worker stop failed');
          logger.flush();
          process.exit(1);
        },
      );
    }
  });
  send({ type: 'ready', httpPort: node.httpPort, grpcPort: node.grpcPort });
}

run().catch((err: unknown) => {
  process.stderr.write(`tessera worker: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
