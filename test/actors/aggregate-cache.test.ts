/**
 * The actors' aggregate caches and the per-instance index of what they hold
 * (actors/runtime/aggregate-cache.ts): a change to a stream reaches the caches holding it by one
 * lookup, whatever the number of actors loaded in the instance, and the index follows every way
 * an entry leaves a cache (delete, eviction past the bound, clear, passivation).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ActorSystem, createIdGenerator, createManualClock, createOrg, orgKind, patchOrg, UNIQUE_SCOPES, type StoreAdapter } from '../../actors/index.js';
import { AggregateCache, HolderIndex } from '../../actors/runtime/aggregate-cache.js';
import type { Loaded } from '../../actors/kernel/aggregate.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';

const entry = (id: string, version: number): Loaded<unknown> => ({ kind: orgKind, id, version, state: undefined }) as unknown as Loaded<unknown>;

describe('HolderIndex', () => {
  it('knows which caches hold a key through set, delete, eviction and clear', () => {
    const index = new HolderIndex();
    const a = new AggregateCache(2, index);
    const b = new AggregateCache(10, index);
    a.set('k1', entry('1', 1));
    a.set('k1', entry('1', 2)); // an update: still one holder
    b.set('k1', entry('1', 1));
    a.set('k2', entry('2', 1));
    expect(index.size).toBe(2);

    a.set('k3', entry('3', 1)); // past a's bound: k1 (its oldest) leaves a, stays in b
    expect(a.has('k1')).toBe(false);
    index.dropOlder('k1', 5);
    expect(b.has('k1')).toBe(false);
    expect(index.size).toBe(2); // k2, k3

    a.delete('k2');
    a.clear();
    expect(index.size).toBe(0);
  });

  it('drops only entries older than the change, in every cache holding them', () => {
    const index = new HolderIndex();
    const a = new AggregateCache(10, index);
    const b = new AggregateCache(10, index);
    const c = new AggregateCache(10, index);
    a.set('k', entry('1', 3));
    b.set('k', entry('1', 5));
    c.set('k', entry('1', 2));
    c.set('other', entry('2', 1));
    index.dropOlder('k', 5);
    expect([a.has('k'), b.has('k'), c.has('k')]).toEqual([false, true, false]);
    expect(c.has('other')).toBe(true); // control: another key is untouched
    index.dropOlder('k', 5); // b is at that version already
    expect(b.has('k')).toBe(true);
    index.dropOlder('k', 6);
    expect(b.has('k')).toBe(false);
    expect(index.size).toBe(1);
  });
});

describe('ActorSystem.forget with many actors loaded', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean();
  });

  async function twoSystems(idleMs: number) {
    const raw = await openLmdbStore({ path: tempDir('tessera-aggregate-cache-') });
    cleanups.push(() => raw.close());
    const reads: string[] = [];
    const rechecks: string[] = []; // aggregates whose append was refused
    const counted: StoreAdapter = {
      ...raw,
      // Commands load their aggregates with readAggregates (run-command.ts).
      readAggregates: (instanceId, aggregates) => (reads.push(...aggregates.map((a) => a.aggregateId)), raw.readAggregates(instanceId, aggregates)),
      // A stale cached aggregate costs a refused append before the re-read: what a forget spares.
      append: async (request) => {
        const result = await raw.append(request);
        if (!result.ok && result.reason === 'conflict') rechecks.push(result.aggregateId);
        return result;
      },
    };
    const clock = createManualClock();
    const make = (store: StoreAdapter) =>
      new ActorSystem({ store, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: { debug() {}, info() {}, warn() {}, error() {} }, idleMs, uniqueScopes: UNIQUE_SCOPES });
    return { here: make(counted), there: make(raw), raw, reads, rechecks, clock };
  }

  const as = { creator: 'tester' };
  const org = (orgId: string) => ({ kind: 'org', instanceId: 'i1', orgId }) as const;

  it("drops the changed organization from its actor's cache and keeps the others'", async () => {
    const { here, there, raw, reads, rechecks } = await twoSystems(60_000);
    for (let i = 0; i < 200; i++) await here.ask(org(`o${i}`), createOrg, { orgId: `o${i}`, name: `Org ${i}`, instanceDomain: 'd' }, as);
    expect(here.loadedCount).toBeGreaterThanOrEqual(200);

    await there.ask(org('o7'), patchOrg, { orgId: 'o7', name: 'Renamed' }, as);
    await there.ask(org('o9'), patchOrg, { orgId: 'o9', name: 'Renamed too' }, as); // not told to `here`
    here.forget('i1', [{ aggregateType: orgKind.type, aggregateId: 'o7', version: await raw.streamVersion('i1', orgKind.type, 'o7') }]);

    reads.length = 0;
    rechecks.length = 0;
    await here.ask(org('o7'), patchOrg, { orgId: 'o7', name: 'Again' }, as);
    expect(reads).toContain('o7'); // read fresh: the forget reached o7's actor
    expect(rechecks).not.toContain('o7'); // and no append was refused first

    // Control: o9 changed too but `here` was not told: its actor's stale copy costs a refused append.
    rechecks.length = 0;
    await here.ask(org('o9'), patchOrg, { orgId: 'o9', name: 'Again too' }, as);
    expect(rechecks).toContain('o9');

    // And an organization that did not change stays cached.
    reads.length = 0;
    await here.ask(org('o8'), patchOrg, { orgId: 'o8', name: 'Kept' }, as);
    expect(reads).not.toContain('o8');
  });

  it('forgets nothing of a passivated actor, and a new actor for it reads fresh', async () => {
    const { here, there, raw, reads, clock } = await twoSystems(1_000);
    await here.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Org', instanceDomain: 'd' }, as);
    clock.advance(2_000);
    here.passivateIdle();
    expect(here.loadedCount).toBe(0);
    await there.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Renamed' }, as);
    here.forget('i1', [{ aggregateType: orgKind.type, aggregateId: 'o1', version: await raw.streamVersion('i1', orgKind.type, 'o1') }]);
    reads.length = 0;
    await here.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Again' }, as);
    expect(reads).toContain('o1');
  });
});
