/**
 * What a node drops when the change feed reports another node's writes: an actor forgets the
 * aggregates that moved (so its next command appends once instead of losing a conditional
 * append first), keeps the ones it already has at that version, and each cache hears only
 * about the streams it holds. Over a real LMDB store shared by two actor systems; the store
 * port is wrapped to count appends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  brandingSettingsKind,
  createIdGenerator,
  createManualClock,
  createOrg,
  executionSetKind,
  instanceKind,
  instanceSettingsKind,
  orgKind,
  patchOrg,
  SYSTEM_TENANT,
  targetKind,
  UNIQUE_SCOPES,
  webKeysKind,
  type StoreAdapter,
  type StoreChange,
} from '../../actors/index.js';
import { createNodeInvalidations } from '../../src/cluster/cluster-sync.js';
import type { TenantDirectory } from '../../src/query/tenant.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function sharedStore(): Promise<{ store: StoreAdapter; appends: () => number }> {
  const store = await openLmdbStore({ path: tempDir('tessera-cluster-') });
  cleanups.push(() => store.close());
  let count = 0;
  const counting: StoreAdapter = { ...store, append: (request) => ((count += 1), store.append(request)) };
  return { store: counting, appends: () => count };
}

function system(store: StoreAdapter): ActorSystem {
  const clock = createManualClock();
  return new ActorSystem({ store, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: silent, uniqueScopes: UNIQUE_SCOPES });
}

const org = { kind: 'org', instanceId: 'i1', orgId: 'o1' } as const;
const as = { creator: 'tester' };
const orgChange = (version: number): StoreChange => ({ instanceId: 'i1', fromPosition: 1, toPosition: 9, streams: [{ aggregateType: orgKind.type, aggregateId: 'o1', version }] });

describe('ActorSystem.forget', () => {
  it("drops an aggregate another node moved on, so the next command appends once", async () => {
    const { store, appends } = await sharedStore();
    const [here, there] = [system(store), system(store)];
    await here.ask(org, createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    await there.ask(org, patchOrg, { orgId: 'o1', name: 'Elsewhere' }, as);

    here.forget('i1', orgChange(2).streams);
    const before = appends();
    await here.ask(org, patchOrg, { orgId: 'o1', name: 'Here' }, as);
    expect(appends() - before).toBe(1);
    expect((await here.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('Here');
  });

  it('without the change, loses one conditional append and retries (what forget saves)', async () => {
    const { store, appends } = await sharedStore();
    const [here, there] = [system(store), system(store)];
    await here.ask(org, createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    await there.ask(org, patchOrg, { orgId: 'o1', name: 'Elsewhere' }, as);

    here.forget('i1', orgChange(1).streams); // a version it already has: kept
    const before = appends();
    await here.ask(org, patchOrg, { orgId: 'o1', name: 'Here' }, as);
    expect(appends() - before).toBe(2);
  });

  it('drops every aggregate of the instance when the change lists no streams', async () => {
    const { store, appends } = await sharedStore();
    const [here, there] = [system(store), system(store)];
    await here.ask(org, createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    await there.ask(org, patchOrg, { orgId: 'o1', name: 'Elsewhere' }, as);
    here.forget('i1');
    const before = appends();
    await here.ask(org, patchOrg, { orgId: 'o1', name: 'Here' }, as);
    expect(appends() - before).toBe(1);
  });
});

describe('node cache invalidations', () => {
  it('tells each cache about its own streams only (held values in the instance state through forget)', async () => {
    const { store } = await sharedStore();
    const calls: string[] = [];
    const tenants = { refresh: async (id: string) => void calls.push(`tenants.refresh ${id}`), load: async () => void calls.push('tenants.load') } as unknown as TenantDirectory;
    const actors = system(store);
    const registry = createNodeInvalidations({
      actors,
      tenants,
      logger: silent,
    });
    const stream = (aggregateType: string, aggregateId: string) => ({ aggregateType, aggregateId, version: 3 });
    // What edges hold in the instance state (the signer's key ring, the execution plan) hears of its streams through the same call.
    const i1 = actors.instanceState('i1');
    const heldAt2 = (type: string) => async (id: string) => ({ value: type, streams: [{ aggregateType: type, aggregateId: id, version: 2 }] });
    await i1.hold('signing keys', [webKeysKind.type], heldAt2(webKeysKind.type));
    await i1.hold('execution plan', [executionSetKind.type, targetKind.type], heldAt2(executionSetKind.type));
    registry.dispatch({ instanceId: 'i1', fromPosition: 1, toPosition: 1, streams: [stream(orgKind.type, 'o1')] });
    expect([i1.holds('signing keys'), i1.holds('execution plan')]).toEqual([true, true]); // control: not their streams
    registry.dispatch({ instanceId: 'i1', fromPosition: 2, toPosition: 3, streams: [stream(webKeysKind.type, 'i1'), stream(targetKind.type, 't1')] });
    expect([i1.holds('signing keys'), i1.holds('execution plan')]).toEqual([false, true]); // t1 is not a target the plan read
    registry.dispatch({ instanceId: 'i1', fromPosition: 4, toPosition: 4, streams: [stream(executionSetKind.type, 'i1')] });
    expect(i1.holds('execution plan')).toBe(false);
    registry.dispatch({ instanceId: SYSTEM_TENANT, fromPosition: 1, toPosition: 2, streams: [stream(instanceKind.type, 'i1'), stream(instanceKind.type, 'i2')] });
    registry.dispatch({ instanceId: SYSTEM_TENANT, fromPosition: 3, toPosition: 5000 });
    // The login UI's settings: the instance's read state hears of its streams through the same registry.
    const state = actors.instanceState('i9');
    await state.branding();
    registry.dispatch({ instanceId: 'i9', fromPosition: 6, toPosition: 6, streams: [stream(orgKind.type, 'o9')] });
    expect(state.size).toBe(1); // control: not one of its streams
    registry.dispatch({ instanceId: 'i9', fromPosition: 7, toPosition: 7, streams: [stream(brandingSettingsKind.type, 'i9')] });
    expect(state.size).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['tenants.refresh i1', 'tenants.refresh i2', 'tenants.load']);
  });

  it("drops an instance's rate limits when its settings change (not for other streams, not for the system tenant)", async () => {
    const { store } = await sharedStore();
    const dropped: string[] = [];
    const tenants = { refresh: async () => undefined, load: async () => undefined } as unknown as TenantDirectory;
    const registry = createNodeInvalidations({
      actors: system(store),
      tenants,
      logger: silent,
      limits: { invalidate: (id) => dropped.push(id) },
    });
    const stream = (aggregateType: string, aggregateId: string) => ({ aggregateType, aggregateId, version: 2 });
    registry.dispatch({ instanceId: 'i1', fromPosition: 1, toPosition: 1, streams: [stream(instanceSettingsKind.type, 'i1')] });
    registry.dispatch({ instanceId: 'i2', fromPosition: 1, toPosition: 1, streams: [stream(orgKind.type, 'o1')] });
    registry.dispatch({ instanceId: SYSTEM_TENANT, fromPosition: 1, toPosition: 1, streams: [stream(instanceKind.type, 'i4')] });
    registry.dispatch({ instanceId: 'i3', fromPosition: 1, toPosition: 9000 }); // streams unknown: anything may have changed
    expect(dropped).toEqual(['i1', 'i3']);
  });
});
