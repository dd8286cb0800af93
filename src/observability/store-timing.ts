/**
 * Store append latency for the metrics: the store's own `append` replaced by one that times it.
 * Appends are the write path (one per command), not a hot read path; the timing adds one await.
 */
import type { StoreAdapter } from '../../actors/index.js';

export function timeStoreAppends(store: StoreAdapter, observe: (seconds: number, failed: boolean) => void): StoreAdapter {
  const append = store.append.bind(store);
  const timed: StoreAdapter['append'] = async (request) => {
    const started = performance.now();
    let failed = true;
    try {
      const result = await append(request);
      failed = false;
      return result;
    } finally {
      observe((performance.now() - started) / 1000, failed);
    }
  };
  Object.defineProperty(store, 'append', { value: timed, configurable: true, writable: true });
  return store;
}
