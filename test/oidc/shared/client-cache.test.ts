/**
 * The OIDC clients held by the instance state (src/oidc/shared/client-cache.ts): a found client
 * is dropped only when a stream it was read from moves (the app, its project, its org; the
 * machine user, its org, the instance settings); an unknown id when a stream of a type that
 * could make it known moves; both are bounded. The rows come from a counted in-memory source
 * standing in for the store's reads; the instance state and the one invalidation
 * (ActorSystem.forget) are the real ones.
 */
import { describe, expect, it } from 'vitest';
import {
  ActorSystem,
  APP_CLIENT_ID_SCOPE,
  applicationKind,
  type AggregateKind,
  type AggregateRecord,
  createIdGenerator,
  createManualClock,
  instanceUsernameKey,
  orgKind,
  projectKind,
  UNIQUE_SCOPES,
  USERNAME_INSTANCE_SCOPE,
  userKind,
  type StoreAdapter,
} from '../../../actors/index.js';
import { clientSecretDigest } from '../../../src/query/app-clients.js';
import { createClientCache } from '../../../src/oidc/shared/client-cache.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const owner = { type: 'org', id: 'o1' } as const;
const row = (id: string, version: number, state: object): AggregateRecord<unknown> => ({ id, meta: { version, sequence: version, createdAt: 0, changedAt: 0, owner }, state }) as unknown as AggregateRecord<unknown>;
const stream = (aggregateType: string, aggregateId: string, version: number) => ({ aggregateType, aggregateId, version });

/** An actor system whose reads come from `rows` / `claims`, counted; its instance state is real. */
function source() {
  const rows = new Map<string, AggregateRecord<unknown>>();
  const claims = new Map<string, string>();
  const reads = { count: 0 };
  const clock = createManualClock();
  const actors = new ActorSystem({ store: {} as StoreAdapter, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: silent, idleMs: 60_000, uniqueScopes: UNIQUE_SCOPES });
  Object.assign(actors, {
    findUnique: async (_instance: string, scope: string, value: string) => ((reads.count += 1), claims.get(`${scope}:${value}`)),
    readRecord: async (_instance: string, kind: AggregateKind<unknown>, id: string) => ((reads.count += 1), rows.get(`${kind.table}:${id}`)),
  });
  const put = (kind: AggregateKind<unknown>, record: AggregateRecord<unknown>) => rows.set(`${kind.table}:${record.id}`, record);
  put(orgKind as AggregateKind<unknown>, row('o1', 2, { name: 'Acme', state: 'active', primaryDomain: 'acme.localhost' }));
  put(projectKind as AggregateKind<unknown>, row('p1', 1, { orgId: 'o1', state: 'active' }));
  put(applicationKind as AggregateKind<unknown>, row('a1', 3, { orgId: 'o1', projectId: 'p1', clientId: 'app-client', config: { type: 'api', api: { authMethod: 'basic' } }, secretDigest: clientSecretDigest('s1'), keys: [] }));
  claims.set(`${APP_CLIENT_ID_SCOPE}:app-client`, 'a1');
  put(userKind as AggregateKind<unknown>, row('u1', 4, { type: 'machine', state: 'active', orgId: 'o1', username: 'bot', secretDigest: clientSecretDigest('b1') }));
  claims.set(`${USERNAME_INSTANCE_SCOPE}:${instanceUsernameKey('bot')}`, 'u1');
  return { actors, reads };
}

describe('OIDC clients held by the instance state', () => {
  it('a held client is a synchronous lookup; user creations keep it, a change of its app, project or org drops it', async () => {
    const { actors, reads } = source();
    const clients = createClientCache({ actors });
    const first = await clients.resolve('i1', 'app-client');
    expect(first.kind).toBe('app');
    const loadReads = reads.count;
    expect(clients.resolve('i1', 'app-client')).toBe(first); // not a promise: held
    actors.forget('i1', [stream(userKind.type, 'u9', 1), stream(userKind.type, 'u10', 1), stream(applicationKind.type, 'a2', 1), stream(orgKind.type, 'o1', 2)]);
    expect(clients.resolve('i1', 'app-client')).toBe(first); // other users and apps created, its org at the version read
    expect(reads.count).toBe(loadReads);
    for (const moved of [stream(applicationKind.type, 'a1', 4), stream(projectKind.type, 'p1', 2), stream(orgKind.type, 'o1', 3)]) {
      actors.forget('i1', [moved]);
      expect(clients.resolve('i1', 'app-client')).toBeInstanceOf(Promise); // control: dropped, read again
      await clients.resolve('i1', 'app-client');
    }
  });

  it('a machine user depends on its user and org streams; reload replaces what is held', async () => {
    const { actors } = source();
    const clients = createClientCache({ actors });
    const bot = await clients.resolve('i1', 'bot');
    expect(bot.kind).toBe('machine');
    actors.forget('i1', [stream(userKind.type, 'u2', 1), stream(applicationKind.type, 'a1', 9)]);
    expect(clients.resolve('i1', 'bot')).toBe(bot);
    actors.forget('i1', [stream(userKind.type, 'u1', 5)]);
    expect(clients.resolve('i1', 'bot')).toBeInstanceOf(Promise);
    const again = await clients.resolve('i1', 'bot');
    const reloaded = await clients.reload('i1', 'bot');
    expect(reloaded).not.toBe(again);
    expect(clients.resolve('i1', 'bot')).toBe(reloaded);
  });

  it('an unknown id is held until an app or user changes, and unknown ids are bounded apart from found clients', async () => {
    const { actors, reads } = source();
    const clients = createClientCache({ actors, maxEntries: 2, maxUnknown: 3 });
    expect((await clients.resolve('i1', 'nobody')).kind).toBe('unknown');
    const before = reads.count;
    expect(clients.resolve('i1', 'nobody')).toEqual({ kind: 'unknown' }); // held: no read
    actors.forget('i1', [stream('web_keys', 'i1', 7)]);
    expect(clients.resolve('i1', 'nobody')).not.toBeInstanceOf(Promise); // control: not a type that makes clients
    expect(reads.count).toBe(before);
    actors.forget('i1', [stream(userKind.type, 'u9', 1)]);
    expect(clients.resolve('i1', 'nobody')).toBeInstanceOf(Promise);

    await clients.resolve('i1', 'app-client');
    await clients.resolve('i1', 'bot');
    for (let i = 0; i < 50; i += 1) await clients.resolve('i1', `flood-${i}`);
    const state = actors.instanceState('i1');
    expect(state.heldCount(clients.family)).toEqual({ found: 2, misses: 3 });
    expect(clients.resolve('i1', 'app-client')).not.toBeInstanceOf(Promise); // the flood evicted no found client
    expect(clients.resolve('i1', 'bot')).not.toBeInstanceOf(Promise);
  });
});
