/**
 * Runs the OIDC client helpers (findAppByClientId) against a running node's store (either
 * kind, opened beside it) — so e2e tests can check what the token endpoint will see.
 */
import { randomBytes } from 'node:crypto';
import { ActorSystem, createIdGenerator, systemClock, UNIQUE_SCOPES } from '../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../src/query/app-clients.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import type { TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { readSetup } from './seed.fixture.js';

export async function lookupClient(node: TestNode, clientId: string): Promise<ClientApp | undefined> {
  const { instanceId } = await readSetup(node);
  const store = await openNodeStore(node);
  const actors = new ActorSystem({
    store,
    clock: systemClock,
    ids: createIdGenerator(() => Date.now()),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  try {
    return await findAppByClientId(actors, instanceId, clientId);
  } finally {
    await actors.stop();
    await store.close();
  }
}
