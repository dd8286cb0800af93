/**
 * `tessera start`: the node the configuration asks for. One thread loads the serving node
 * (node.ts); with workers the main thread loads only the supervisor (src/cluster/workers.ts),
 * which prepares the store and starts the workers, each of which loads node.ts (#13).
 */
import { systemClock, type Clock } from '../../actors/index.js';
import { workerCount, type Config } from '../config/schema.js';
import { selectHttpAdapter } from '../http/select-adapter.js';
import type { NodeLogger } from '../observability/logger.js';
import type { RunningNode } from './node.js';

/**
 * Starts the node the configuration asks for: one thread, or (more than one worker: TESSERA_WORKERS,
 * unset the usable cores) a main thread supervising worker threads (src/cluster/workers.ts). node:http needs `reusePort` for that
 * (Node 22.12+); on older Node it serves with one thread and says so.
 */
export async function startConfiguredNode(config: Config, logger: NodeLogger, clock: Clock = systemClock): Promise<RunningNode> {
  const workers = workerCount(config);
  if (workers <= 1) return (await import('./node.js')).startNode(config, logger, clock);
  const { nodeHasReusePort, startWorkers } = await import('../cluster/workers.js');
  if (!nodeHasReusePort()) {
    const http = await selectHttpAdapter(config.http);
    if (http.adapter.name === 'node') {
      logger.warn({ workers, node: process.versions.node }, 'several workers (TESSERA_WORKERS, default the usable cores) with node:http need Node 22.12 or later (reusePort); serving with one thread');
      return (await import('./node.js')).startNode(config, logger, clock);
    }
  }
  return startWorkers(config, logger, workers);
}
