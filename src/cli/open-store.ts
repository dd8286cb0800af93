/**
 * Picks the store the configuration asks for (design §5): PostgreSQL when `databaseUrl` is
 * set (migrations and index builds run on open), else the LMDB directory under `dataDir`.
 * The PostgreSQL modules load only for a PostgreSQL store (an LMDB node's idle memory, #13).
 * With `benchWithoutIndexes` the store keeps no search indexes and refuses index reads
 * (without-indexes.ts); the explicit empty catalog marks its indexes as built for no table, so
 * the next open with INDEX_CATALOG rebuilds them from the rows written meanwhile.
 */
import { join } from 'node:path';
import { EMPTY_CATALOG, INDEX_CATALOG, type Clock, type Logger, type StoreAdapter } from '../../actors/index.js';
import { workerCount, type Config } from '../config/schema.js';
import { openLmdbStore } from '../store/lmdb-store.js';
import { refuseIndexReads } from '../store/without-indexes.js';

export async function openConfiguredStore(config: Config, options: { logger: Logger; clock?: Clock }): Promise<StoreAdapter> {
  const { logger, clock } = options;
  const catalog = config.benchWithoutIndexes ? EMPTY_CATALOG : INDEX_CATALOG;
  if (config.benchWithoutIndexes) logger.warn({}, 'TESSERA_BENCH_WITHOUT_INDEXES: the store keeps no search indexes and searches are refused; for benchmarks only');
  let store: StoreAdapter;
  if (config.databaseUrl !== undefined) {
    const { openPostgresStore } = await import('../store/postgres-store.js');
    store = await openPostgresStore({ url: config.databaseUrl, schema: config.databaseSchema, logger, clock, catalog });
  } else {
    store = openLmdbStore({ path: join(config.dataDir, 'lmdb'), logger, clock, catalog, claims: workerCount(config) > 1 });
  }
  return config.benchWithoutIndexes ? refuseIndexReads(store) : store;
}
