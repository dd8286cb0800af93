/**
 * The tenant directory's full reload (a change that arrives without its streams): an instance
 * removed on another node stops resolving, and the others keep resolving. Two actor systems over
 * one real LMDB store stand for the two nodes; node B's directory is not told of A's commands.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ActorSystem, createIdGenerator, createInstance, createManualClock, removeInstance, UNIQUE_SCOPES, type StoreAdapter } from '../../actors/index.js';
import { TenantDirectory } from '../../src/query/tenant.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function sharedStore(): Promise<StoreAdapter> {
  const store = await openLmdbStore({ path: tempDir('tessera-tenants-') });
  cleanups.push(() => store.close());
  return store;
}

function system(store: StoreAdapter): ActorSystem {
  const clock = createManualClock();
  return new ActorSystem({ store, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: silent, uniqueScopes: UNIQUE_SCOPES });
}

const as = { creator: 'tester' };

describe('TenantDirectory.load', () => {
  it('forgets an instance removed elsewhere and keeps the others (control)', async () => {
    const store = await sharedStore();
    const nodeA = system(store);
    const nodeB = system(store);
    for (const [id, domain] of [['i1', 'one.example'], ['i2', 'two.example']] as const) await nodeA.ask({ kind: 'system' }, createInstance, { instanceId: id, name: id, domain }, as);
    const directory = new TenantDirectory(nodeB, () => 0);
    await directory.load();
    expect(directory.knownHost('one.example')?.id).toBe('i1');
    expect(directory.knownHost('two.example')?.id).toBe('i2');

    await nodeA.ask({ kind: 'system' }, removeInstance, { instanceId: 'i1' }, as);
    // Not told yet: B still knows both (what a lost change leaves).
    expect(directory.knownHost('one.example')?.id).toBe('i1');
    await directory.load();
    expect(directory.knownHost('one.example')).toBeUndefined();
    expect(directory.byInstanceId('i1')).toBeUndefined();
    expect(await directory.resolveHost('one.example')).toBeUndefined();
    expect(directory.knownHost('two.example')?.id).toBe('i2');
    expect((await directory.resolveHost('TWO.example:443'))?.id).toBe('i2');
  });
});
