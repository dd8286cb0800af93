/**
 * Stores for suites that run against both adapters: an LMDB store in a fresh temporary
 * directory, a PostgreSQL store in a fresh schema of TESSERA_TEST_DATABASE_URL; `cleanup`
 * closes the store and removes the directory or drops the schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreAdapter } from '../../actors/index.js';
import { openLmdbStore, type LmdbStoreOptions } from '../../src/store/lmdb-store.js';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres-store.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';

export interface TempStore {
  readonly store: StoreAdapter;
  cleanup(): Promise<void>;
}

/** An LMDB store in a new directory named after `prefix` under the system's temporary directory. */
export function tempLmdbStore(prefix: string, options: Omit<LmdbStoreOptions, 'path'> = {}): TempStore {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = openLmdbStore({ ...options, path: dir });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL store in a fresh schema of the test database. */
export async function tempPostgresStore(options: Omit<PostgresStoreOptions, 'url' | 'schema'> = {}): Promise<TempStore> {
  const schema = freshSchemaName();
  const store = await openPostgresStore({ ...options, url: TEST_DATABASE_URL ?? '', schema });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}
