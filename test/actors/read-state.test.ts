/**
 * The instance's read state (actors/instance/read-state.ts): its entries are keyed by the
 * versions of the streams they were computed from, and the change of one of those streams is
 * their one invalidation. Two actor systems share one real LMDB store, as two nodes (or two
 * workers) share theirs: `there` writes, `here` answers from its read state and hears of the
 * write only when the change reaches it — or at once for its own appends. Values edges hold
 * there (`hold`: the signer's key ring, the execution plan) follow the same invalidation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  brandingSettingsKind,
  createIdGenerator,
  createManualClock,
  createOrg,
  loginSettingsKind,
  orgKind,
  patchOrg,
  resetLoginSettings,
  setBrandingSettings,
  setLoginSettings,
  setTextSettings,
  textSettingsId,
  textSettingsKind,
  UNIQUE_SCOPES,
  type ManualClock,
  type StoreAdapter,
} from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** A shared LMDB store whose getRecord calls are counted (a read-state miss reads rows). */
/** `store` counts its reads (the read state's node); `raw` does not (the writing node, the test's own look-ups). */
async function sharedStore(): Promise<{ store: StoreAdapter; raw: StoreAdapter; reads: () => number }> {
  const store = await openLmdbStore({ path: tempDir('tessera-read-state-') });
  cleanups.push(() => store.close());
  let count = 0;
  return { store: { ...store, getRecord: (...args) => ((count += 1), store.getRecord(...args)) }, raw: store, reads: () => count };
}

function system(store: StoreAdapter, clock: ManualClock = createManualClock(), idleMs = 60_000): ActorSystem {
  return new ActorSystem({ store, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: silent, idleMs, uniqueScopes: UNIQUE_SCOPES });
}

const instance = { kind: 'instance', instanceId: 'i1' } as const;
const as = { creator: 'tester' };
const stream = (aggregateType: string, aggregateId: string, version: number) => ({ aggregateType, aggregateId, version });
const catalog = { keys: ['Login.Title', 'Login.Next'], values: { 'Login.Title': 'Sign in', 'Login.Next': 'Next' } };

/** The version of a row as the store holds it now (0: no row). */
async function versionOf(store: StoreAdapter, table: string, id: string): Promise<number> {
  return ((await store.getRecord('i1', table, id)) as { meta: { version: number } } | undefined)?.meta.version ?? 0;
}

describe('instance read state', () => {
  it("keeps an entry until the change of a stream it was computed from arrives, then answers the new value", async () => {
    const { store, raw, reads } = await sharedStore();
    const [here, there] = [system(store), system(raw)];
    await there.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#111111' }, reset: [] } }, as);
    const state = here.instanceState('i1');
    expect((await state.branding()).primaryColor).toBe('#111111');

    await there.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#222222' }, reset: [] } }, as);
    // Nothing reached `here` yet: the entry answers without a read, with what it was computed from.
    const before = reads();
    expect((await state.branding()).primaryColor).toBe('#111111');
    expect(reads()).toBe(before);

    here.forget('i1', [stream(brandingSettingsKind.type, 'i1', await versionOf(raw, brandingSettingsKind.table, 'i1'))]);
    expect((await state.branding()).primaryColor).toBe('#222222');
    expect(reads()).toBe(before + 1);
  });

  it('keeps its entries for an unrelated stream, and for a version it already has', async () => {
    const { store, raw, reads } = await sharedStore();
    const here = system(store);
    await here.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#111111' }, reset: [] } }, as);
    const state = here.instanceState('i1');
    await state.branding();
    await state.loginSettings();
    const before = reads();

    here.forget('i1', [stream(orgKind.type, 'o1', 7), stream(loginSettingsKind.type, 'other', 3)]); // unrelated streams
    here.forget('i1', [stream(brandingSettingsKind.type, 'i1', await versionOf(raw, brandingSettingsKind.table, 'i1'))]); // the version it was read at
    here.forget('i2', [stream(brandingSettingsKind.type, 'i1', 99)]); // another instance
    await state.branding();
    await state.loginSettings();
    expect(reads()).toBe(before);
    expect(state.size).toBe(2);

    // Control: a newer version of its own stream does drop it (one read: the instance's row).
    here.forget('i1', [stream(brandingSettingsKind.type, 'i1', (await versionOf(raw, brandingSettingsKind.table, 'i1')) + 1)]);
    await state.branding();
    expect(reads()).toBe(before + 1);
  });

  it("sees this system's own appends at once (read-your-writes), without the change feed", async () => {
    const { store } = await sharedStore();
    const here = system(store);
    const state = here.instanceState('i1');
    expect((await state.loginSettings()).settings.allowRegister).toBe(true);
    await here.ask(instance, setLoginSettings, { settings: { allowRegister: false } }, as);
    expect((await state.loginSettings()).settings.allowRegister).toBe(false);
  });

  it("resolves an organization's policy over the instance's, and follows the org's reset", async () => {
    const { store } = await sharedStore();
    const here = system(store);
    const org = { kind: 'org', instanceId: 'i1', orgId: 'o1' } as const;
    await here.ask(org, createOrg, { orgId: 'o1', name: 'Org', instanceDomain: 'd' }, as);
    await here.ask(instance, setLoginSettings, { settings: { hidePasswordReset: true } }, as);
    await here.ask(org, setLoginSettings, { orgId: 'o1', settings: { hidePasswordReset: false } }, as);
    const state = here.instanceState('i1');
    expect((await state.loginSettings('o1')).owner.id).toBe('o1');
    expect((await state.loginSettings('o1')).settings.hidePasswordReset).toBe(false);

    await here.ask(org, resetLoginSettings, { orgId: 'o1' }, as);
    // The org's row is gone (no version to compare with): the reset's own append dropped the entry.
    const effective = await state.loginSettings('o1');
    expect(effective.owner.id).toBe('i1');
    expect(effective.settings.hidePasswordReset).toBe(true);
  });

  it('keys texts by language: a change of one language keeps the others', async () => {
    const { store, raw, reads } = await sharedStore();
    const [here, there] = [system(store), system(raw)];
    await there.ask(instance, setTextSettings, { language: 'de', patch: { set: { 'Login.Title': 'Anmelden' }, reset: [] } }, as);
    const state = here.instanceState('i1');
    expect((await state.texts(undefined, 'de', catalog))['Login.Title']).toBe('Anmelden');
    expect((await state.texts(undefined, 'en', catalog))['Login.Title']).toBe('Sign in');

    await there.ask(instance, setTextSettings, { language: 'de', patch: { set: { 'Login.Title': 'Einloggen' }, reset: [] } }, as);
    const version = await versionOf(raw, textSettingsKind.table, textSettingsId('i1', 'de'));
    here.forget('i1', [stream(textSettingsKind.type, textSettingsId('i1', 'de'), version)]);
    const before = reads();
    expect((await state.texts(undefined, 'en', catalog))['Login.Title']).toBe('Sign in');
    expect(reads()).toBe(before); // English kept
    expect((await state.texts(undefined, 'de', catalog))['Login.Title']).toBe('Einloggen');
    expect(reads()).toBe(before + 1); // German read again
  });

  it('drops a read still under way when its stream changes, so the old value is not kept', async () => {
    const { raw } = await sharedStore();
    // The read state's reads wait at a gate, so the change surely arrives while one is under way.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: StoreAdapter = { ...raw, getRecord: async (...args) => {
      const row = await raw.getRecord(...args);
      await gate;
      return row;
    } };
    const [here, there] = [system(held), system(raw)];
    await there.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#111111' }, reset: [] } }, as);
    const state = here.instanceState('i1');
    const inFlight = state.branding();
    await new Promise((resolve) => setImmediate(resolve)); // the row is read (the old one), the answer waits at the gate
    await there.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#222222' }, reset: [] } }, as);
    here.forget('i1', [stream(brandingSettingsKind.type, 'i1', await versionOf(raw, brandingSettingsKind.table, 'i1'))]);
    release();
    expect((await inFlight).primaryColor).toBe('#111111'); // its callers get what it read
    expect((await state.branding()).primaryColor).toBe('#222222'); // nobody else reuses it
  });

  it('drops everything when a change does not list its streams', async () => {
    const { store } = await sharedStore();
    const here = system(store);
    const state = here.instanceState('i1');
    await state.branding();
    await state.loginSettings();
    expect(state.size).toBe(2);
    here.forget('i1');
    expect(state.size).toBe(0);
  });

  it('passivates with the idle actors and is created again on the next query', async () => {
    const { store } = await sharedStore();
    const clock = createManualClock();
    const here = system(store, clock, 1_000);
    const first = here.instanceState('i1');
    await first.branding();
    clock.advance(500);
    here.passivateIdle();
    expect(here.instanceState('i1')).toBe(first); // control: not idle long enough (and this query renews it)
    clock.advance(1_000);
    here.passivateIdle();
    expect(here.readStateCount).toBe(0);
    expect(here.instanceState('i1')).not.toBe(first);
  });
});

describe('values edges hold in the instance state (hold: the key ring, the execution plan)', () => {
  /** A loader that reports what it read at `versions` and counts its loads. */
  function loader(versions: Record<string, number>) {
    const loads = { count: 0 };
    const load = async (instanceId: string) => {
      loads.count += 1;
      return { value: `load ${loads.count}`, streams: Object.entries(versions).map(([id, version]) => stream('web_keys', id === 'self' ? instanceId : id, version)) };
    };
    return { loads, load };
  }

  it('answers synchronously once loaded; drops on a newer version of a stream it read, keeps otherwise; tells onDrop', async () => {
    const { store } = await sharedStore();
    const here = system(store);
    const state = here.instanceState('i1');
    const { loads, load } = loader({ self: 3 });
    const dropped: string[] = [];
    const onDrop = (id: string) => void dropped.push(id);
    expect(await state.hold('ring', ['web_keys'], load, onDrop)).toBe('load 1');
    expect(state.hold('ring', ['web_keys'], load, onDrop)).toBe('load 1'); // no promise: a Map lookup
    here.forget('i1', [stream('web_keys', 'i1', 3), stream('web_keys', 'other', 9), stream('org', 'i1', 9)]);
    expect(state.hold('ring', ['web_keys'], load, onDrop)).toBe('load 1'); // control: same version, other id, other type
    here.forget('i1', [stream('web_keys', 'i1', 4)]);
    expect(dropped).toEqual(['i1']);
    expect(await state.hold('ring', ['web_keys'], load, onDrop)).toBe('load 2');
    here.forget('i1'); // streams unknown: everything goes
    expect(state.holds('ring')).toBe(false);
    expect(loads.count).toBe(2);
  });

  it('does not keep a failed load, and drops a load under way on any change of its types', async () => {
    const { store } = await sharedStore();
    const here = system(store);
    const state = here.instanceState('i1');
    const failing = async () => {
      throw new Error('store down');
    };
    await expect(state.hold('ring', ['web_keys'], failing)).rejects.toThrow('store down');
    expect(state.holds('ring')).toBe(false);
    const { load } = loader({ self: 1 });
    const pending = state.hold('ring', ['web_keys'], load);
    here.forget('i1', [stream('org', 'o1', 5)]); // control: not its type
    expect(state.holds('ring')).toBe(true);
    here.forget('i1', [stream('web_keys', 'i1', 2)]);
    expect(await pending).toBe('load 1'); // its callers get their answer
    expect(state.holds('ring')).toBe(false); // nobody else reuses it
  });

  it("hears of this system's own appends, and passivates with the instance (onDrop not told)", async () => {
    const { store } = await sharedStore();
    const clock = createManualClock();
    const here = system(store, clock, 1_000);
    const dropped: string[] = [];
    const org = { kind: 'org', instanceId: 'i1', orgId: 'o1' } as const;
    const orgLoad = async () => ({ value: 'org', streams: [stream(orgKind.type, 'o1', await versionOf(store, orgKind.table, 'o1'))] });
    await here.ask(org, createOrg, { orgId: 'o1', name: 'One', instanceDomain: 'd' }, as);
    const state = here.instanceState('i1');
    await state.hold('org', [orgKind.type], orgLoad, (id) => void dropped.push(id));
    await here.ask(instance, setBrandingSettings, { patch: { set: { primaryColor: '#111111' }, reset: [] } }, as);
    expect(state.holds('org')).toBe(true); // control: an append of other streams
    await here.ask(org, patchOrg, { orgId: 'o1', name: 'One again' }, as);
    expect([state.holds('org'), dropped]).toEqual([false, ['i1']]);
    expect(await state.hold('org', [orgKind.type], orgLoad, (id) => void dropped.push(id))).toBe('org');
    clock.advance(2_000);
    here.passivateIdle();
    expect(here.readStateCount).toBe(0);
    expect(here.instanceState('i1').holds('org')).toBe(false);
    expect(dropped).toEqual(['i1']);
  });
});
