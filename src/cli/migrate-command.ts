/**
 * `tessera migrate`: applies the PostgreSQL schema migrations, builds the read-model indexes
 * the schema lacks (resumable: an interrupted build continues on the next run) and exits, for operators who
 * migrate before rolling out nodes (nodes also migrate on start; docs/operations/postgres.md).
 */
import { INDEX_CATALOG, type Logger } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { migratePostgres } from '../store/postgres-store.js';

/** Returns the exit code: 0 migrated (or already current), 2 no database configured. */
export async function runMigrateCommand(config: Config, logger: Logger): Promise<number> {
  if (config.databaseUrl === undefined) {
    process.stderr.write('tessera migrate: TESSERA_DATABASE_URL is not set (the LMDB store needs no migrations)\n');
    return 2;
  }
  const result = await migratePostgres({ url: config.databaseUrl, schema: config.databaseSchema, logger, catalog: INDEX_CATALOG });
  const changed = result.applied.length > 0 || result.indexedRows > 0;
  logger.info({ applied: result.applied, version: result.version, indexedRows: result.indexedRows, trigramIndex: result.trigramIndex }, changed ? 'migrated' : 'schema already current');
  return 0;
}
