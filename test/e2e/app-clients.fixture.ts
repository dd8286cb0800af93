/**
 * Runs the OIDC client helpers (findAppByClientId) against a running node's store — LMDB is
 * multi-process — so e2e tests can check what the token endpoint will see.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ActorSystem, createIdGenerator, systemClock, UNIQUE_SCOPES } from '../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../src/query/app-clients.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import type { SeedSetup } from './seed.fixture.js';

export async function lookupClient(dataDir: string, clientId: string): Promise<ClientApp | undefined> {
  const store = await openLmdbStore({ path: join(dataDir, 'lmdb') });
  const actors = new ActorSystem({
    store,
    clock: systemClock,
    ids: createIdGenerator(() => Date.now()),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  try {
    const setup = (await store.getMeta('setup')) as SeedSetup;
    return await findAppByClientId(actors, setup.instanceId, clientId);
  } finally {
    await actors.stop();
    await store.close();
  }
}
