/**
 * `tessera migrate`: applies the PostgreSQL schema migrations and exits, for operators who
 * migrate before rolling out nodes (nodes also migrate on start; docs/operations/postgres.md).
 */
import type { Logger } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { migratePostgres } from '../store/postgres-store.js';

/** Returns the exit code: 0 migrated (or already current), 2 no database configured. */
export async function runMigrateCommand(config: Config, logger: Logger): Promise<number> {
  if (config.databaseUrl === undefined) {
    process.stderr.write('tessera migrate: TESSERA_DATABASE_URL is not set (the LMDB store needs no migrations)\n');
    return 2;
  }
  const result = await migratePostgres({ url: config.databaseUrl, schema: config.databaseSchema, logger });
  logger.info({ applied: result.applied, version: result.version }, result.applied.length > 0 ? 'migrated' : 'schema already current');
  return 0;
}
