/**
 * The actor runtime over a real LMDB store: one command at a time per actor, conditional
 * appends that lose no update when two actor systems (two nodes) race on one stream, rows
 * equal to the fold of the stream, passivation, crash recovery and typed errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  AppError,
  createIdGenerator,
  createManualClock,
  createOrg,
  foldRecord,
  orgKind,
  patchOrg,
  setDefaultOrg,
  UNIQUE_SCOPES,
  type CommandHandler,
  type StoreAdapter,
} from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const dirs: string[] = [];
const stores: StoreAdapter[] = [];

async function openStore(dir = mkdtempSync(join(tmpdir(), 'tessera-runtime-'))): Promise<{ store: StoreAdapter; dir: string }> {
  dirs.push(dir);
  const store = await openLmdbStore({ path: dir });
  stores.push(store);
  return { store, dir };
}

function system(store: StoreAdapter, clock = createManualClock(), idleMs = 60_000) {
  return new ActorSystem({
    store,
    clock,
    ids: createIdGenerator(() => clock.now()),
    sealer: { seal: (s) => s, open: (s) => s },
    logger: silent,
    idleMs,
    uniqueScopes: UNIQUE_SCOPES,
  });
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const org = (orgId: string) => ({ kind: 'org', instanceId: 'i1', orgId }) as const;
const as = { creator: 'tester' };

describe('ActorSystem', () => {
  it('runs commands of one actor one at a time and persists rows equal to the fold of the stream', async () => {
    const { store } = await openStore();
    const actors = system(store);
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    const renames = Array.from({ length: 50 }, (_, i) => actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: `Name ${i}` }, as));
    const details = await Promise.all(renames);
    expect(details.map((d) => d.sequence)).toEqual([...details.map((d) => d.sequence)].sort((a, b) => a - b));
    const row = await actors.readRecord('i1', orgKind, 'o1');
    expect(row?.state.name).toBe('Name 49');
    expect(row?.meta.version).toBe(51);
    const stream = await store.readStream('i1', 'org', 'o1');
    expect(foldRecord(orgKind, 'o1', undefined, stream)).toEqual(row);
    await actors.stop();
  });

  it('loses no update when two actor systems race on the same stream', async () => {
    const { store } = await openStore();
    const a = system(store);
    const b = system(store);
    await a.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Race', instanceDomain: 'd' }, as);
    const work = (s: ActorSystem, tag: string) =>
      Promise.all(Array.from({ length: 40 }, (_, i) => s.ask(org('o1'), patchOrg, { orgId: 'o1', name: `${tag}-${i}` }, as)));
    await Promise.all([work(a, 'a'), work(b, 'b')]);
    const events = await store.readStream('i1', 'org', 'o1');
    expect(events).toHaveLength(81);
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    expect((await a.readRecord('i1', orgKind, 'o1'))?.meta.version).toBe(81);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('does not refuse on a stale cached aggregate another node has since changed', async () => {
    const { store } = await openStore();
    const a = system(store);
    const b = system(store);
    const instance = { kind: 'instance', instanceId: 'i1' } as const;
    const missing = await a.ask(instance, setDefaultOrg, { orgId: 'o2' }, as).catch((e: unknown) => e);
    expect((missing as AppError).code).toBe('org.not_found'); // a now caches o2 as absent
    await b.ask(org('o2'), createOrg, { orgId: 'o2', name: 'Late', instanceDomain: 'd' }, as);
    const details = await a.ask(instance, setDefaultOrg, { orgId: 'o2' }, as);
    expect(details.id).toBe('o2');
    await Promise.all([a.stop(), b.stop()]);
  });

  it('does not answer a no-op from a stale cached aggregate', async () => {
    const { store } = await openStore();
    const a = system(store);
    const b = system(store);
    await a.ask(org('o1'), createOrg, { orgId: 'o1', name: 'First', instanceDomain: 'd' }, as); // a caches "First"
    await b.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Second' }, as);
    await a.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'First' }, as); // not a no-op any more
    expect((await a.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('First');
    await Promise.all([a.stop(), b.stop()]);
  });

  it('reports a lost unique claim as already_exists and writes nothing', async () => {
    const { store } = await openStore();
    const actors = system(store);
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Same', instanceDomain: 'd' }, as);
    const error = await actors.ask(org('o2'), createOrg, { orgId: 'o2', name: 'same', instanceDomain: 'x' }, as).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('org.name_taken');
    expect(await actors.readRecord('i1', orgKind, 'o2')).toBeUndefined();
    expect(await store.streamVersion('i1', 'org', 'o2')).toBe(0);
    await actors.stop();
  });

  it('passivates idle actors and reactivates them from the store', async () => {
    const { store } = await openStore();
    const clock = createManualClock();
    const actors = system(store, clock, 1000);
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Idle', instanceDomain: 'd' }, as);
    expect(actors.loadedCount).toBe(1);
    clock.advance(999);
    actors.passivateIdle();
    expect(actors.loadedCount).toBe(1);
    clock.advance(1);
    actors.passivateIdle();
    expect(actors.loadedCount).toBe(0);
    await actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Awake' }, as);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('Awake');
    await actors.stop();
  });

  it('turns a crash into internal, reloads from the store, and keeps serving', async () => {
    const { store } = await openStore();
    const actors = system(store);
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Crashy', instanceDomain: 'd' }, as);
    const crashing: CommandHandler<unknown, unknown> = {
      load: () => [],
      decide: () => {
        throw new TypeError('boom');
      },
    };
    const error = await actors.ask(org('o1'), crashing, {}, as).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe('internal');
    expect((error as AppError).message).not.toContain('boom');
    await actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Fine' }, as);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('Fine');
    await actors.stop();
  });
});
