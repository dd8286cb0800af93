/**
 * A store opened without its search indexes (TESSERA_BENCH_WITHOUT_INDEXES, benchmarks only:
 * bench/write-cost.ts measures what the indexes cost a write). With the empty catalog the
 * appends write no index entries, so a walk of the indexes would find nothing and answer an
 * empty page as if the tenant had no rows: every index read refuses instead (501
 * `store.indexes_off`). Rows, unique claims and events are read as always.
 */
import { unimplemented, type IndexReads, type RequestReads, type StoreAdapter } from '../../actors/index.js';

const INDEX_READS = ['readIndex', 'countIndex', 'rowCounts', 'readSummaries', 'readIndexWithSummaries', 'readIndexPage'] as const satisfies readonly (keyof IndexReads)[];

/** `store` (opened with the empty catalog) with every index read refusing; returns it. */
export function refuseIndexReads(store: StoreAdapter): StoreAdapter {
  const refuse = () => Promise.reject(indexesOff());
  for (const name of INDEX_READS) {
    // The optional reads only where the store has them (the executor picks its path by them).
    if (store[name] !== undefined) Object.defineProperty(store, name, { value: refuse, configurable: true, writable: true });
  }
  // A request's own reads (PostgreSQL) may answer a search page with its position check: those refuse too.
  const requestReads = store.requestReads?.bind(store);
  if (requestReads !== undefined) {
    const view = (instanceId: string): RequestReads => ({ ...requestReads(instanceId), readIndexWithSummaries: refuse, readIndexPage: refuse });
    Object.defineProperty(store, 'requestReads', { value: view, configurable: true, writable: true });
  }
  return store;
}

function indexesOff() {
  return unimplemented('store.indexes_off', 'this node runs without its search indexes (TESSERA_BENCH_WITHOUT_INDEXES, benchmarks only): searches are off');
}
