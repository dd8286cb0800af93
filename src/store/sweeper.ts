/**
 * The TTL sweeper: deletes expired protocol-state rows (design §5) on a fixed interval.
 * The timer is unref'd so it never keeps a process alive; a failed sweep is logged and the
 * next tick tries again; sweeps never overlap.
 */
import type { Clock, Logger, StoreAdapter } from '../../actors/index.js';

export interface Sweeper {
  stop(): void;
}

export function startSweeper(store: StoreAdapter, clock: Clock, intervalMs: number, logger?: Logger): Sweeper {
  let running = false;
  let stopped = false;

  async function tick(): Promise<void> {
    if (running || stopped) return;
    running = true;
    try {
      const deleted = await store.ttl.sweep(clock.now());
      if (deleted > 0) logger?.debug({ deleted }, 'ttl sweep');
    } catch (err) {
      logger?.error({ err }, 'ttl sweep failed');
    } finally {
      running = false;
    }
  }

  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
