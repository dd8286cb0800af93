/**
 * Seeds principals straight through the domain (the same commands the API runs) into a
 * running node's store — LMDB is multi-process — for tests that need a caller with
 * particular roles before the user and membership APIs exist.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  ActorSystem,
  addMachineUser,
  addMembership,
  addPersonalAccessToken,
  addUserIdpLink,
  createIdGenerator,
  systemClock,
  UNIQUE_SCOPES,
  type IdpLink,
  type MembershipContext,
} from '../../actors/index.js';
import { tokenDigest } from '../../src/crypto/token-digest.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';

export interface SeedSetup {
  readonly instanceId: string;
  readonly orgId: string;
}

/** Reads the first-run plan of a data directory. */
export async function readSetup(dataDir: string): Promise<SeedSetup> {
  const store = await openLmdbStore({ path: join(dataDir, 'lmdb') });
  try {
    return (await store.getMeta('setup')) as SeedSetup;
  } finally {
    await store.close();
  }
}

/** Runs `work` with an actor system on a running node's store (LMDB is multi-process). */
async function withActors<T>(dataDir: string, work: (actors: ActorSystem, setup: SeedSetup, ids: ReturnType<typeof createIdGenerator>) => Promise<T>): Promise<T> {
  const store = await openLmdbStore({ path: join(dataDir, 'lmdb') });
  const ids = createIdGenerator(() => Date.now());
  const actors = new ActorSystem({
    store,
    clock: systemClock,
    ids,
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  try {
    return await work(actors, (await store.getMeta('setup')) as SeedSetup, ids);
  } finally {
    await actors.stop();
    await store.close();
  }
}

/** Links a human user to an external identity, as an external login would (no API adds links). */
export async function seedIdpLink(dataDir: string, orgId: string, userId: string, link: IdpLink): Promise<void> {
  await withActors(dataDir, (actors, setup) => actors.ask({ kind: 'org', instanceId: setup.instanceId, orgId }, addUserIdpLink, { orgId, userId, link }, { creator: '' }));
}

/** Adds a machine user with a PAT and optional memberships; returns its token. */
export async function seedMachineUser(
  dataDir: string,
  options: { username: string; memberships?: readonly { contextType: MembershipContext; contextId: string; roles: readonly string[] }[] },
): Promise<{ userId: string; token: string }> {
  return withActors(dataDir, async (actors, setup, ids) => {
    const userId = ids.next();
    const org = { kind: 'org', instanceId: setup.instanceId, orgId: setup.orgId } as const;
    const instance = { kind: 'instance', instanceId: setup.instanceId } as const;
    const creator = { creator: '' };
    await actors.ask(org, addMachineUser, { userId, orgId: setup.orgId, username: options.username, name: options.username, description: '', accessTokenType: 'bearer' }, creator);
    for (const m of options.memberships ?? []) {
      await actors.ask(instance, addMembership, { ...m, userId }, creator);
    }
    const token = randomBytes(32).toString('base64url');
    await actors.ask(org, addPersonalAccessToken, { userId, tokenId: ids.next(), digest: tokenDigest(token), expiresAt: Date.now() + 3_600_000 }, creator);
    return { userId, token };
  });
}
