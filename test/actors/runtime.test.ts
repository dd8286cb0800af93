/**
 * The actor runtime over a real LMDB store: one command at a time per actor, conditional
 * appends that lose no update when two actor systems (two nodes) race on one stream, rows
 * equal to the fold of the stream, passivation, crash recovery and typed errors.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ActorSystem,
  addHumanUser,
  AppError,
  changeUserState,
  createSession,
  knownRecord,
  sessionKind,
  createIdGenerator,
  createManualClock,
  createOrg,
  foldRecord,
  orgKind,
  patchOrg,
  setDefaultOrg,
  UNIQUE_SCOPES,
  userKind,
  type ActorSystemOptions,
  type AggregateLocation,
  type AddHumanUser,
  type CreateSession,
  type CommandHandler,
  type StoreAdapter,
} from '../../actors/index.js';
import { toWireError } from '../../src/http/error-mapping.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const stores: StoreAdapter[] = [];

async function openStore(dir = tempDir('tessera-runtime-')): Promise<{ store: StoreAdapter; dir: string }> {
  const store = await openLmdbStore({ path: dir });
  stores.push(store);
  return { store, dir };
}

function system(store: StoreAdapter, clock = createManualClock(), idleMs = 60_000, extra: Partial<ActorSystemOptions> = {}) {
  return new ActorSystem({
    store,
    clock,
    ids: createIdGenerator(() => clock.now()),
    sealer: { seal: (s) => s, open: (s) => s },
    logger: silent,
    idleMs,
    uniqueScopes: UNIQUE_SCOPES,
    ...extra,
  });
}

/** The store with its appends held at a gate: `entered` resolves when an append reached it. */
function holdAppends(store: StoreAdapter) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const held: StoreAdapter = new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') {
        return async (request: Parameters<StoreAdapter['append']>[0]) => {
          entered();
          await gate;
          return target.append(request);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: held, release, reached };
}

/** patchOrg counting how often it decides (i.e. ran), optionally doing `during` while it runs. */
function countedPatch(during: () => void = () => undefined) {
  const handler = {
    runs: 0,
    load: patchOrg.load,
    decide(...args: Parameters<typeof patchOrg.decide>) {
      handler.runs += 1;
      during();
      return patchOrg.decide(...args);
    },
  };
  return handler;
}

function errorOf(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as AppError,
  );
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
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

  it('refuses an ask at once with unavailable when the actor\'s mailbox is full, and accepts it again once there is room', async () => {
    const { store: lmdb } = await openStore();
    await system(lmdb).ask(org('o1'), createOrg, { orgId: 'o1', name: 'Full', instanceDomain: 'd' }, as);
    const { store, release, reached } = holdAppends(lmdb);
    const actors = system(store, createManualClock(), 60_000, { mailboxCapacity: 2 });
    const first = actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'One' }, as);
    await reached; // running, held in its append
    const second = actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Two' }, as); // under the cap: queued
    const refused = await errorOf(actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Three' }, as));
    expect(refused.kind).toBe('unavailable');
    expect(refused.code).toBe('actor.mailbox_full');
    const wire = toWireError(refused);
    expect(wire.httpStatus).toBe(503);
    expect(wire.headers?.['retry-after']).toBe('1');
    // Another actor has its own mailbox: accepted while o1's is full.
    const other = actors.ask(org('o2'), createOrg, { orgId: 'o2', name: 'Other', instanceDomain: 'd' }, as);
    release();
    expect((await first).sequence).toBeGreaterThan(0);
    expect((await second).sequence).toBeGreaterThan(0);
    expect((await other).id).toBe('o2');
    await actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Four' }, as); // room again
    expect((await store.readStream('i1', 'org', 'o1')).map((e) => e.payload)).toHaveLength(4); // created, One, Two, Four
    await actors.stop();
  });

  it('refuses an ask when its instance\'s actors together hold their cap, while another instance is served', async () => {
    const { store: lmdb } = await openStore();
    const { store, release, reached } = holdAppends(lmdb);
    const actors = system(store, createManualClock(), 60_000, { instanceQueueCapacity: 2 });
    const a = actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'A', instanceDomain: 'd' }, as);
    await reached;
    const b = actors.ask(org('o2'), createOrg, { orgId: 'o2', name: 'B', instanceDomain: 'd' }, as); // second actor of i1, under the cap
    const refused = await errorOf(actors.ask(org('o3'), createOrg, { orgId: 'o3', name: 'C', instanceDomain: 'd' }, as));
    expect(refused.kind).toBe('unavailable');
    expect(refused.code).toBe('actor.instance_queue_full');
    const elsewhere = actors.ask({ kind: 'org', instanceId: 'i2', orgId: 'o3' }, createOrg, { orgId: 'o3', name: 'C', instanceDomain: 'd' }, as);
    release();
    expect((await a).id).toBe('o1');
    expect((await b).id).toBe('o2');
    expect((await elsewhere).id).toBe('o3');
    expect(await store.streamVersion('i1', 'org', 'o3')).toBe(0);
    await actors.ask(org('o3'), createOrg, { orgId: 'o3', name: 'C', instanceDomain: 'd' }, as); // room again
    expect(await store.streamVersion('i1', 'org', 'o3')).toBe(1);
    await actors.stop();
  });

  it('drops a command still queued when its deadline passes (it never runs); one whose append had started answers its real outcome', async () => {
    const { store: lmdb } = await openStore();
    await system(lmdb).ask(org('o1'), createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    const { store, release, reached } = holdAppends(lmdb);
    const clock = createManualClock();
    const actors = system(store, clock, 60_000, { askTimeoutMs: 1_000 });
    const appending = countedPatch();
    const queued = countedPatch();
    const first = actors.ask(org('o1'), appending, { orgId: 'o1', name: 'Appending' }, as);
    await reached;
    const second = actors.ask(org('o1'), queued, { orgId: 'o1', name: 'Late' }, as);
    clock.advance(1_000); // both deadlines pass: the first in its append, the second in the mailbox
    release();
    expect((await first).sequence).toBeGreaterThan(0);
    const late = await errorOf(second);
    expect(late.kind).toBe('deadline_exceeded');
    expect(queued.runs).toBe(0);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('Appending');
    expect(await store.streamVersion('i1', 'org', 'o1')).toBe(2);
    // Control: within its deadline the same command runs and appends.
    const control = countedPatch();
    await actors.ask(org('o1'), control, { orgId: 'o1', name: 'In time' }, as);
    expect(control.runs).toBe(1);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('In time');
    await actors.stop();
  });

  it('never appends a command whose deadline passed while it ran, before its append', async () => {
    const { store } = await openStore();
    const clock = createManualClock();
    const actors = system(store, clock, 60_000, { askTimeoutMs: 1_000 });
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    const slow = countedPatch(() => clock.advance(1_000)); // the deadline passes while it decides
    const error = await errorOf(actors.ask(org('o1'), slow, { orgId: 'o1', name: 'Too late' }, as));
    expect(error.kind).toBe('deadline_exceeded');
    expect(slow.runs).toBe(1);
    expect(await store.streamVersion('i1', 'org', 'o1')).toBe(1);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('Start');
    // Control: a command that takes less than its deadline appends.
    const quick = countedPatch(() => clock.advance(999));
    await actors.ask(org('o1'), quick, { orgId: 'o1', name: 'In time' }, as);
    expect(await store.streamVersion('i1', 'org', 'o1')).toBe(2);
    expect((await actors.readRecord('i1', orgKind, 'o1'))?.state.name).toBe('In time');
    await actors.stop();
  });

  it('answers deadline_exceeded at the ask\'s timer while the command is queued (it then never runs), but not while its append is under way', async () => {
    const { store: lmdb } = await openStore();
    await system(lmdb).ask(org('o1'), createOrg, { orgId: 'o1', name: 'Start', instanceDomain: 'd' }, as);
    const { store, release, reached } = holdAppends(lmdb);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const actors = system(store, createManualClock(), 60_000, { askTimeoutMs: 1_000 });
      const queued = countedPatch();
      let firstDone = false;
      const first = actors.ask(org('o1'), patchOrg, { orgId: 'o1', name: 'Appending' }, as).finally(() => (firstDone = true));
      await reached;
      const second = errorOf(actors.ask(org('o1'), queued, { orgId: 'o1', name: 'Late' }, as));
      vi.advanceTimersByTime(1_000);
      expect((await second).kind).toBe('deadline_exceeded'); // answered while the first still holds the actor
      expect(firstDone).toBe(false); // its append is under way: it waits for the outcome
      release();
      expect((await first).sequence).toBeGreaterThan(0);
      await actors.stop();
      expect(queued.runs).toBe(0);
      expect(await store.streamVersion('i1', 'org', 'o1')).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** The store counting its append calls. */
function countAppends(store: StoreAdapter) {
  const counted = { appends: 0, store: undefined as unknown as StoreAdapter };
  counted.store = new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') {
        return (request: Parameters<StoreAdapter['append']>[0]) => {
          counted.appends += 1;
          return target.append(request);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return counted;
}

const human = (userId: string, username = userId): AddHumanUser => ({
  userId,
  orgId: 'o1',
  username,
  givenName: 'G',
  familyName: userId,
  nickname: '',
  preferredLanguage: 'en',
  gender: 'unspecified',
  email: { address: `${userId}@example.com`, verified: false },
  passwordHash: '',
  passwordChangeRequired: false,
});

describe('ActorSystem.askEach', () => {
  it('writes commands of different streams in one append; the same commands asked one by one append once each', async () => {
    const batched = countAppends((await openStore()).store);
    const one = countAppends((await openStore()).store);
    const a = system(batched.store);
    const b = system(one.store);
    for (const s of [a, b]) await s.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Bulk', instanceDomain: 'd' }, as);
    const commands = Array.from({ length: 10 }, (_, i) => human(`u${i}`));
    const before = batched.appends;
    const settled = await a.askEach(org('o1'), addHumanUser, commands, as);
    expect(batched.appends - before).toBe(1);
    const base = one.appends;
    for (const c of commands) await b.ask(org('o1'), addHumanUser, c, as);
    expect(one.appends - base).toBe(10); // the control: one append per ask
    expect(settled.map((r) => (r.ok ? r.value.id : r.error))).toEqual(commands.map((c) => c.userId));
    for (const c of commands) {
      const row = await a.readRecord('i1', userKind, c.userId);
      expect(row?.state.username).toBe(c.username);
      expect(foldRecord(userKind, c.userId, undefined, await batched.store.readStream('i1', 'user', c.userId))).toEqual(row);
    }
    await Promise.all([a.stop(), b.stop()]);
  });

  it('reads the aggregates of all its commands in one store read; asked one by one, each command reads its own', async () => {
    const { store } = await openStore();
    const calls: string[] = [];
    const counted = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(prop));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const s = system(counted);
    await s.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Bulk', instanceDomain: 'd' }, as);
    calls.length = 0;
    const settled = await s.askEach(org('o1'), addHumanUser, Array.from({ length: 20 }, (_, i) => human(`u${i}`)), as);
    expect(settled.filter((r) => r.ok)).toHaveLength(20);
    expect(calls).toEqual(['readAggregates', 'append']);
    // Control: the same kind of commands asked one by one read each new user's row and stream version, one read each.
    calls.length = 0;
    for (let i = 0; i < 20; i += 1) await s.ask(org('o1'), addHumanUser, human(`v${i}`), as);
    expect(calls.filter((c) => c === 'readAggregates')).toHaveLength(20);
    expect(calls.filter((c) => c === 'getRecord' || c === 'streamVersion')).toEqual([]);
    await s.stop();
  });

  it('gives each command the outcome of one ask after the other: a taken username and an existing user fail alone', async () => {
    const commands = [human('u0', 'same'), human('u1'), human('u2', 'same'), human('u1', 'other'), human('u4')];
    const outcomes = async (run: (s: ActorSystem) => Promise<{ ok: boolean; code?: string }[]>) => {
      const { store } = await openStore();
      const s = system(store);
      await s.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Bulk', instanceDomain: 'd' }, as);
      const result = await run(s);
      const users = await Promise.all(['u0', 'u1', 'u2', 'u4'].map(async (id) => (await s.readRecord('i1', userKind, id))?.state.username));
      await s.stop();
      return { result, users };
    };
    const code = (error: unknown) => (error instanceof AppError ? error.code : String(error));
    const together = await outcomes(async (s) => (await s.askEach(org('o1'), addHumanUser, commands, as)).map((r) => (r.ok ? { ok: true } : { ok: false, code: code(r.error) })));
    const oneByOne = await outcomes(async (s) => {
      const result: { ok: boolean; code?: string }[] = [];
      for (const c of commands) result.push(await s.ask(org('o1'), addHumanUser, c, as).then(() => ({ ok: true }), (e: unknown) => ({ ok: false, code: code(e) })));
      return result;
    });
    expect(together).toEqual(oneByOne);
    expect(together.result).toEqual([{ ok: true }, { ok: true }, { ok: false, code: 'user.username_taken' }, { ok: false, code: 'user.exists' }, { ok: true }]);
    expect(together.users).toEqual(['same', 'u1', undefined, 'u4']);
  });
});

/** The store logging each call by name (`readAggregates <ids>` with the ids read). */
function countingStore(store: StoreAdapter, calls: string[]): StoreAdapter {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const read = prop === 'readAggregates' ? (args[1] as readonly AggregateLocation[]).map((a) => a.aggregateId).join(',') : undefined;
        calls.push(read === undefined ? String(prop) : `readAggregates ${read}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('minted ids (AskOptions.minted)', () => {
  it('creates an aggregate under a minted id without reading it first; without minted the same create reads it', async () => {
    const { store } = await openStore();
    const calls: string[] = [];
    const s = system(countingStore(store, calls));
    await s.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Minted', instanceDomain: 'd' }, as);
    await s.ask(org('o1'), addHumanUser, human('warm'), as); // the organization and the instance are cached now
    calls.length = 0;
    await s.ask(org('o1'), addHumanUser, human('m1'), { ...as, minted: ['m1'] });
    expect(calls).toEqual(['append']);
    calls.length = 0;
    await s.ask(org('o1'), addHumanUser, human('r1'), as); // the control
    expect(calls).toEqual(['readAggregates r1', 'append']);
    expect((await s.readRecord('i1', userKind, 'm1'))?.state.username).toBe('m1');
    await s.stop();
  });

  it('refuses a minted id that exists after all, as if it had been read: the append conflicts, the next attempt reads it', async () => {
    const { store } = await openStore();
    const writer = system(store);
    await writer.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Minted', instanceDomain: 'd' }, as);
    await writer.ask(org('o1'), addHumanUser, human('taken', 'first'), as);
    await writer.stop();
    const calls: string[] = [];
    const s = system(countingStore(store, calls)); // a fresh cache: 'taken' is not in it
    const refused = await s.ask(org('o1'), addHumanUser, human('taken', 'second'), { ...as, minted: ['taken'] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('user.exists');
    // The first attempt reads the organization and the instance (not cached here), not the user; after the conflict the user is read.
    expect(calls.filter((c) => c === 'append' || c.startsWith('readAggregates'))).toEqual(['readAggregates o1,i1', 'append', 'readAggregates taken']);
    expect((await s.readRecord('i1', userKind, 'taken'))?.state.username).toBe('first'); // nothing overwritten
    await s.stop();
  });
});

describe('known records (AskOptions.known)', () => {
  const session = (sessionId: string): CreateSession => ({
    sessionId,
    orgId: 'o1',
    userId: 'u1',
    tokenDigest: `digest-${sessionId}`,
    lifetimeMs: 60_000,
    metadata: {},
    userAgent: { userAgent: '', ip: '' },
  });
  /** A store holding organization o1 and user u1, and a second actor system on it (another worker: nothing cached) logging its store calls. */
  const seeded = async () => {
    const { store } = await openStore();
    const writer = system(store);
    await writer.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Known', instanceDomain: 'd' }, as);
    await writer.ask(org('o1'), addHumanUser, human('u1'), as);
    const calls: string[] = [];
    return { store, writer, calls, s: system(countingStore(store, calls)) };
  };
  const reads = (calls: readonly string[]) => calls.filter((c) => c === 'append' || c.startsWith('readAggregates') || c === 'streamVersion');

  it('decides on a known record without reading it again; without it the same command reads it', async () => {
    const { store, writer, s, calls } = await seeded();
    const user = (await s.readRecord('i1', userKind, 'u1'))!;
    calls.length = 0;
    await s.ask(org('o1'), createSession, session('s1'), { ...as, minted: ['s1'], known: [knownRecord(userKind, user)] });
    expect(reads(calls)).toEqual(['readAggregates o1', 'append']);
    await s.stop();
    const calls2: string[] = [];
    const control = system(countingStore(store, calls2)); // a fresh cache, no known record
    await control.ask(org('o1'), createSession, session('s2'), { ...as, minted: ['s2'] });
    expect(reads(calls2)).toEqual(['readAggregates o1,u1', 'append']);
    expect((await control.readRecord('i1', sessionKind, 's1'))?.state.userId).toBe('u1');
    await control.stop();
    await writer.stop();
  });

  it('refuses a known record that moved as a conflict: the next attempt reads it and decides on what is stored', async () => {
    const { writer, s, calls } = await seeded();
    const user = (await s.readRecord('i1', userKind, 'u1'))!; // active
    await writer.ask(org('o1'), changeUserState, { orgId: 'o1', userId: 'u1', action: 'deactivate' }, as);
    calls.length = 0;
    const refused = await s.ask(org('o1'), createSession, session('s1'), { ...as, minted: ['s1'], known: [knownRecord(userKind, user)] }).catch((e: unknown) => e);
    expect((refused as AppError).code).toBe('user.inactive');
    expect(reads(calls)).toEqual(['readAggregates o1', 'append', 'readAggregates s1,u1', 'streamVersion']);
    expect(await s.readRecord('i1', sessionKind, 's1')).toBeUndefined(); // nothing written on the stale record
    await s.stop();
    await writer.stop();
  });

  it('checks a refusal decided on a known record against its stream: a stale one is read again, a current one refuses', async () => {
    const { writer, s, calls } = await seeded();
    await writer.ask(org('o1'), changeUserState, { orgId: 'o1', userId: 'u1', action: 'deactivate' }, as);
    const inactive = (await s.readRecord('i1', userKind, 'u1'))!;
    // Current: refused after the known record's stream version was checked (it is not read again).
    calls.length = 0;
    const refused = await s.ask(org('o1'), createSession, session('s1'), { ...as, minted: ['s1'], known: [knownRecord(userKind, inactive)] }).catch((e: unknown) => e);
    expect((refused as AppError).code).toBe('user.inactive');
    expect(reads(calls)).toEqual(['readAggregates o1', 'streamVersion']);
    // Stale (reactivated meanwhile): the refusal is not trusted; the cached organization's and the
    // known user's versions are checked, the next attempt reads the user and creates the session.
    await writer.ask(org('o1'), changeUserState, { orgId: 'o1', userId: 'u1', action: 'reactivate' }, as);
    calls.length = 0;
    await s.ask(org('o1'), createSession, session('s2'), { ...as, minted: ['s2'], known: [knownRecord(userKind, inactive)] });
    expect(reads(calls)).toEqual(['streamVersion', 'streamVersion', 'readAggregates s2,u1', 'append']);
    expect((await s.readRecord('i1', sessionKind, 's2'))?.state.userId).toBe('u1');
    await s.stop();
    await writer.stop();
  });
});

describe('the actor cache', () => {
  it('keeps at most cacheLimit aggregates: the oldest is read from the store again, a recent one is not', async () => {
    const reads: string[] = [];
    const { store } = await openStore();
    const counted: StoreAdapter = new Proxy(store, {
      get(target, prop) {
        if (prop === 'readAggregates') {
          return (instanceId: string, aggregates: readonly AggregateLocation[]) => {
            reads.push(...aggregates.map((a) => a.aggregateId));
            return target.readAggregates(instanceId, aggregates);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const actors = system(counted, createManualClock(), 60_000, { cacheLimit: 5 });
    await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Bounded', instanceDomain: 'd' }, as);
    for (let i = 0; i < 10; i += 1) await actors.ask(org('o1'), addHumanUser, human(`u${i}`), as);
    const loads = async (userId: string) => {
      reads.length = 0;
      await actors.ask(org('o1'), addHumanUser, human(userId), as).catch(() => undefined); // user.exists: the user is loaded
      return reads.filter((id) => id === userId).length;
    };
    expect(await loads('u9')).toBe(0); // recent: from the cache
    expect(await loads('u0')).toBe(1); // evicted long ago: read again
    await actors.stop();
  });
});
