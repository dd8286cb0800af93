/**
 * Picks the store the configuration asks for (design §5): PostgreSQL when `databaseUrl` is
 * set (migrations and index builds run on open), else the LMDB directory under `dataDir`.
 * The PostgreSQL modules load only for a PostgreSQL store (an LMDB node's idle memory, #13).
 */
import { join } from 'node:path';
import { INDEX_CATALOG, type Clock, type Logger, type StoreAdapter } from '../../actors/index.js';
import { workerCount, type Config } from '../config/schema.js';
import { openLmdbStore } from '../store/lmdb-store.js';

export async function openConfiguredStore(config: Config, options: { logger: Logger; clock?: Clock }): Promise<StoreAdapter> {
  const { logger, clock } = options;
  if (config.databaseUrl !== undefined) {
    const { openPostgresStore } = await import('../store/postgres-store.js');
    return openPostgresStore({ url: config.databaseUrl, schema: config.databaseSchema, logger, clock, catalog: INDEX_CATALOG });
  }
  return openLmdbStore({ path: join(config.dataDir, 'lmdb'), logger, clock, catalog: INDEX_CATALOG, claims: workerCount(config) > 1 });
}
