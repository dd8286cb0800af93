/**
 * Read access to a running node's store, whichever it runs on (LMDB is multi-process; the
 * PostgreSQL schema is shared), for tests that check what was recorded (events, read models)
 * where no API shows it. Never for seeding: suites create data through the public API.
 */
import type { StoreAdapter } from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import type { TestNode } from './harness.js';

/** Opens the node's store beside it; close it when done. */
export async function openNodeStore(node: TestNode): Promise<StoreAdapter> {
  const store = node.store;
  return store.kind === 'lmdb' ? openLmdbStore({ path: store.path }) : openPostgresStore({ url: store.url, schema: store.schema, maxConnections: 2 });
}
