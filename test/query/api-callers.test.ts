/**
 * PATs held by the instance read state (src/query/api-callers.ts), on both stores: a held PAT
 * answers authenticate and grants instance roles without a store read, and every write that
 * takes something away — the token removed, the user deactivated, the membership removed, the
 * token expired by the clock — refuses at once; a role given after the caller was held grants.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  addMachineUser,
  addMembership,
  addPersonalAccessToken,
  AppError,
  changeUserState,
  createIdGenerator,
  createOrg,
  membershipId,
  removeMembership,
  removePersonalAccessToken,
  UNIQUE_SCOPES,
  type StoreAdapter,
} from '../../actors/index.js';
import { tokenDigest } from '../../src/crypto/token-digest.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { createApiCallers, type ApiCallers } from '../../src/query/api-callers.js';
import { authenticate, callerCan, type Caller } from '../../src/query/auth.js';
import { tempLmdbStore, tempPostgresStore, type TempStore } from '../store/temp-stores.js';
import { TEST_DATABASE_URL } from '../store/postgres-test-db.js';

const I = 'i1';
const ORG = 'home';
const TOKEN = 'pat-secret-token';
const DAY = 86_400_000;
const system = { creator: '' };
const instance = { kind: 'instance', instanceId: I } as const;
const home = { kind: 'org', instanceId: I, orgId: ORG } as const;

/** The store port with its point reads counted (the reads authenticate and callerCan make). */
function countingStore(store: StoreAdapter): { store: StoreAdapter; reads: () => number } {
  let reads = 0;
  const counted: StoreAdapter = Object.create(store) as StoreAdapter;
  Object.defineProperties(counted, {
    getRecord: { value: (...args: Parameters<StoreAdapter['getRecord']>) => ((reads += 1), store.getRecord(...args)) },
    findUnique: { value: (...args: Parameters<StoreAdapter['findUnique']>) => ((reads += 1), store.findUnique(...args)) },
  });
  return { store: counted, reads: () => reads };
}

interface Fixture {
  readonly actors: ActorSystem;
  readonly callers: ApiCallers;
  readonly reads: () => number;
  readonly clock: { now: number };
  cleanup(): Promise<void>;
}

async function setUp(open: () => Promise<TempStore> | TempStore): Promise<Fixture> {
  const temp = await open();
  const counting = countingStore(temp.store);
  const clock = { now: Date.UTC(2026, 0, 1) };
  const actors = new ActorSystem({
    store: counting.store,
    clock: { now: () => clock.now },
    ids: createIdGenerator(() => clock.now),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  await actors.ask(home, createOrg, { orgId: ORG, name: ORG, instanceDomain: 'example.com' }, system);
  await actors.ask(home, addMachineUser, { userId: 'bot', orgId: ORG, username: 'bot', name: 'bot', description: '', accessTokenType: 'bearer' }, system);
  await actors.ask(home, addPersonalAccessToken, { userId: 'bot', tokenId: 't1', digest: tokenDigest(TOKEN), expiresAt: clock.now + DAY }, system);
  await actors.ask(instance, addMembership, { contextType: 'instance', contextId: I, userId: 'bot', roles: ['IAM_OWNER_VIEWER'] }, system);
  return {
    actors,
    callers: createApiCallers(actors),
    reads: counting.reads,
    clock,
    cleanup: async () => {
      await actors.stop();
      await temp.cleanup();
    },
  };
}

const stores: [string, () => Promise<TempStore> | TempStore][] = [['lmdb', () => tempLmdbStore('tessera-api-callers-')]];
if (TEST_DATABASE_URL !== undefined) stores.push(['postgres', () => tempPostgresStore()]);

describe.each(stores)('api callers (%s)', (_name, open) => {
  let f: Fixture;
  afterEach(async () => f.cleanup());

  const auth = (held = true) => authenticate(f.actors, I, `Bearer ${TOKEN}`, f.clock.now, undefined, held ? f.callers : undefined);
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    return error instanceof AppError ? { kind: error.kind, code: error.code } : error;
  };
  /** Reads the store served while `run` ran. */
  const readsOf = async (run: () => Promise<unknown>) => {
    const before = f.reads();
    await run();
    return f.reads() - before;
  };

  it('answers a held PAT and its instance roles without a store read; without callers every call reads', async () => {
    f = await setUp(open);
    const caller = await auth();
    expect(caller).toEqual({ userId: 'bot', orgId: ORG, instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect(await readsOf(async () => expect(await callerCan(f.actors, I, await auth(), 'org.read', ORG)).toBe(true))).toBe(0);
    // Control: the same checks without held callers read the claim, the user, the membership, the user and the org.
    expect(await readsOf(async () => expect(await callerCan(f.actors, I, await auth(false), 'org.read', ORG)).toBe(true))).toBe(5);
    // Held roles only grant: a permission they lack is decided on the store.
    expect(await callerCan(f.actors, I, caller, 'org.write', ORG)).toBe(false);
  });

  it('refuses at once once the token is removed, the user deactivated or the token expired', async () => {
    f = await setUp(open);
    await auth();
    await f.actors.ask(home, changeUserState, { orgId: ORG, userId: 'bot', action: 'deactivate' }, system);
    expect(await refusal(auth())).toEqual({ kind: 'unauthenticated', code: 'auth.user_inactive' });
    await f.actors.ask(home, changeUserState, { orgId: ORG, userId: 'bot', action: 'reactivate' }, system);
    expect((await auth()).userId).toBe('bot');
    f.clock.now += DAY;
    expect(await refusal(auth())).toEqual({ kind: 'unauthenticated', code: 'auth.invalid_token' });
    f.clock.now -= DAY;
    expect((await auth()).userId).toBe('bot');
    await f.actors.ask(home, removePersonalAccessToken, { orgId: ORG, userId: 'bot', tokenId: 't1' }, system);
    expect(await refusal(auth())).toEqual({ kind: 'unauthenticated', code: 'auth.invalid_token' });
  });

  it('stops granting once the membership is removed, and grants a membership added after the caller was held', async () => {
    f = await setUp(open);
    expect(await callerCan(f.actors, I, await auth(), 'org.read', ORG)).toBe(true);
    await f.actors.ask(instance, removeMembership, { membershipId: membershipId('instance', I, 'bot') }, system);
    const without: Caller = await auth();
    expect(without.instanceRoles).toBeUndefined();
    expect(await callerCan(f.actors, I, without, 'org.read', ORG)).toBe(false);
    await f.actors.ask(instance, addMembership, { contextType: 'instance', contextId: I, userId: 'bot', roles: ['IAM_OWNER_VIEWER'] }, system);
    expect(await callerCan(f.actors, I, await auth(), 'org.read', ORG)).toBe(true);
  });
});
