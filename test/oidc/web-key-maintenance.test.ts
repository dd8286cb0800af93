/**
 * Key maintenance against a real (temporary) LMDB store with the node's index catalog and an
 * injected clock: rotation when due, pruning after the retire window (each reaching the node's
 * signer, whose ring the instance state holds, with no call but the append), only the due rings
 * read (the ring's indexes kept across instances), and one rotation when two processes race.
 */
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActorSystem, createIdGenerator, createInstance, createManualClock, INDEX_CATALOG, UNIQUE_SCOPES, webKeysKind, type StoreAdapter } from '../../actors/index.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { runKeyMaintenance, maintenancePeriodMs } from '../../src/oidc/shared/web-key-maintenance.js';
import { createSigner } from '../../src/crypto/signer.js';
import { createWebKeyService, ensureWebKeys, type WebKeyPolicy } from '../../src/crypto/web-keys.js';
import { tempDir } from '../temp-dirs.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const policy: WebKeyPolicy = { algorithm: 'ES256', rotationIntervalMs: 30 * DAY, retireAfterMs: 13 * HOUR };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const sealer = createSecretSealer(randomBytes(32));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp() {
  const dir = tempDir('tessera-keys-');
  const clock = createManualClock(Date.UTC(2026, 0, 1));
  const store = openLmdbStore({ path: dir, noSync: true, clock, catalog: INDEX_CATALOG });
  const node = (s: StoreAdapter) => {
    const actors = new ActorSystem({ store: s, clock, ids: createIdGenerator(() => clock.now()), sealer, logger: silent, uniqueScopes: UNIQUE_SCOPES });
    const webKeys = createWebKeyService({ actors, policy });
    // The node's signer: hears of rotations and prunes through the instance state's one invalidation.
    const signer = createSigner({ source: webKeys, sealer, clock, states: actors });
    return { actors, webKeys, signer, deps: { actors, store: s, webKeys, clock, logger: silent } };
  };
  const a = node(store);
  cleanups.push(async () => {
    await a.actors.stop();
    await store.close();
  });
  await a.actors.ask({ kind: 'system' }, createInstance, { instanceId: 'i1', name: 'One', domain: 'one.example.com' }, { creator: '' });
  const ring = async (): Promise<[string, string][]> => (await a.actors.readRecord('i1', webKeysKind, 'i1'))?.state.keys.map((k) => [k.kid, k.state]) ?? [];
  const kidAt = async (index: number): Promise<string> => (await ring())[index]?.[0] ?? 'missing';
  return { clock, store, node, a, ring, kidAt };
}

describe('runKeyMaintenance', () => {
  it('rotates when due, prunes after the retire window, and is idle otherwise', async () => {
    const { clock, a, ring, kidAt } = await setUp();
    // An instance without keys is left to its creation and first use (ensureWebKeys), not the pass.
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map());
    expect(await ring()).toEqual([]);
    await ensureWebKeys(a.actors, 'i1', policy);
    const [k1, k2] = [await kidAt(0), await kidAt(1)];
    expect(await ring()).toEqual([[k1, 'active'], [k2, 'next']]);
    const signingKid = async () => decodeProtectedHeader(await a.signer.signJwt('i1', {})).kid;
    const publishedKids = async () => (JSON.parse((await a.signer.publishedKeys('i1')).body) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(await signingKid()).toBe(k1);
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map());

    clock.advance(30 * DAY);
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map([['i1', 'rotated']]));
    const k3 = await kidAt(2);
    expect(await ring()).toEqual([[k1, 'retired'], [k2, 'active'], [k3, 'next']]);
    expect(await signingKid()).toBe(k2); // the signer held k1's ring: the rotation's append dropped it
    expect(await publishedKids()).toEqual([k2, k3, k1]);

    clock.advance(13 * HOUR - 1);
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map());
    clock.advance(1);
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map([['i1', 'pruned']]));
    expect(await ring()).toEqual([[k2, 'active'], [k3, 'next']]);
    expect(await publishedKids()).toEqual([k2, k3]);
  });

  it('reads only the rings that are due, across instances', async () => {
    const { clock, a } = await setUp();
    await ensureWebKeys(a.actors, 'i1', policy);
    clock.advance(DAY);
    for (const id of ['i2', 'i3']) {
      await a.actors.ask({ kind: 'system' }, createInstance, { instanceId: id, name: id, domain: `${id}.example.com` }, { creator: '' });
      await ensureWebKeys(a.actors, id, policy);
    }
    const reads = vi.spyOn(a.actors, 'readRecord');
    clock.advance(30 * DAY - DAY); // i1's key is 30 days old, i2's and i3's 29
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map([['i1', 'rotated']]));
    expect(new Set(reads.mock.calls.map(([instanceId]) => instanceId))).toEqual(new Set(['i1']));
    reads.mockClear();
    clock.advance(DAY); // i2 and i3 are due now; i1's retired key is past its 13-hour window
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map([['i1', 'pruned'], ['i2', 'rotated'], ['i3', 'rotated']]));
    expect(new Set(reads.mock.calls.map(([instanceId]) => instanceId))).toEqual(new Set(['i1', 'i2', 'i3']));
    reads.mockClear();
    clock.advance(HOUR); // nothing is due: no ring is read
    expect(await runKeyMaintenance(a.deps)).toEqual(new Map());
    expect(reads).not.toHaveBeenCalled();
  });

  it('rotates once when two processes find the same instance due at the same time', async () => {
    const { clock, store, node, a, ring } = await setUp();
    await ensureWebKeys(a.actors, 'i1', policy);
    const b = node(store);
    cleanups.push(() => b.actors.stop());
    clock.advance(31 * DAY);
    const [fromA, fromB] = await Promise.all([runKeyMaintenance(a.deps), runKeyMaintenance(b.deps)]);
    expect([...fromA.values(), ...fromB.values()]).toEqual(['rotated']);
    expect((await ring()).map(([, state]) => state)).toEqual(['retired', 'active', 'next']);
  });

  it('ensureWebKeys is idempotent and refuses an unknown instance', async () => {
    const { a, ring } = await setUp();
    expect((await ensureWebKeys(a.actors, 'i1', policy))?.changed).toBe(true);
    const keys = await ring();
    expect(await ensureWebKeys(a.actors, 'i1', policy)).toBeUndefined();
    expect(await ring()).toEqual(keys);
    await expect(ensureWebKeys(a.actors, 'nope', policy)).rejects.toMatchObject({ code: 'instance.not_found' });
  });
});

describe('maintenancePeriodMs', () => {
  it.each([
    [{ rotationIntervalMs: 30 * DAY, retireAfterMs: 13 * HOUR }, 39 * 60_000],
    [{ rotationIntervalMs: 0, retireAfterMs: 100 * DAY }, HOUR],
    [{ rotationIntervalMs: 2_000, retireAfterMs: HOUR }, 1_000],
    [{ rotationIntervalMs: 0, retireAfterMs: 0 }, HOUR],
  ])('%j → %d ms', (windows, period) => {
    expect(maintenancePeriodMs(windows)).toBe(period);
  });
});
