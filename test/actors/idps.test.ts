/** IDP commands (given/when/then) and the login lookup `activeIdpsForOrg` against a real store. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  activeIdpsForOrg,
  ActorSystem,
  createIdGenerator,
  createIdp,
  createManualClock,
  createOrg,
  type CreateIdp,
  type Idp,
  idpKind,
  idpPolicyId,
  idpPolicyKind,
  instanceOwner,
  orgKind,
  orgOwner,
  patchIdp,
  setIdpPolicy,
  type StoreAdapter,
  UNIQUE_SCOPES,
} from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { tempDir } from '../temp-dirs.js';
import { context, given, noOutcome, record } from './decide.fixture.js';

const options = { isManualLinkingAllowed: false, isManualCreationAllowed: false, isAutoCreation: true, isAutoUpdate: false, autoLinking: 'email' as const };
const create = (idpId: string, extra: Partial<CreateIdp> = {}): CreateIdp => ({
  idpId,
  name: ` Forge ${idpId} `,
  idpType: 'forge',
  policy: 'activate',
  options,
  config: { clientId: 'cid', clientSecret: 'plain', scopes: [], issuer: '' },
  ...extra,
});
const idpState: Idp = { name: 'Forge', idpType: 'forge', policy: 'activate', options, config: { clientId: 'cid', clientSecret: 'sealed:plain', scopes: [], issuer: '' } };

describe('IDP commands', () => {
  it('create seals the secret and names the event after the owner', () => {
    const atInstance = createIdp.decide(given([]), create('p1'), context());
    expect(atInstance.events[0]).toMatchObject({ type: 'instance.idp.forge.added', owner: instanceOwner('i1'), payload: { name: 'Forge p1', config: { clientSecret: 'sealed:plain' } } });
    const org = record('o1', { name: 'O', primaryDomain: 'o.example', state: 'active' }, instanceOwner('i1'));
    const inOrg = createIdp.decide(given([{ kind: orgKind, record: org }]), create('p2', { orgId: 'o1', idpType: 'forge_self_hosted' }), context());
    expect(inOrg.events[0]).toMatchObject({ type: 'org.idp.forge_self_hosted.added', owner: orgOwner('o1') });
    expect(() => createIdp.decide(given([]), create('p3', { orgId: 'gone' }), context())).toThrow(expect.objectContaining({ code: 'org.not_found' }));
  });

  it('patch records changed fields only; the same secret or an empty one is no change', () => {
    const current = record('p1', idpState, instanceOwner('i1'));
    const loaded = given([{ kind: idpKind, record: current }]);
    expect(patchIdp.decide(loaded, { idpId: 'p1', idpType: 'forge', name: 'Forge', config: { clientSecret: 'plain' } }, context()).events).toEqual([]);
    expect(patchIdp.decide(loaded, { idpId: 'p1', idpType: 'forge', config: { clientSecret: '' } }, context()).events).toEqual([]);
    const changed = patchIdp.decide(loaded, { idpId: 'p1', idpType: 'forge', policy: 'deactivate', config: { clientSecret: 'new' } }, context());
    expect(changed.events[0]).toMatchObject({ type: 'instance.idp.forge.changed', payload: { policy: 'deactivate', config: { clientSecret: 'sealed:new' } } });
    expect(() => patchIdp.decide(loaded, { idpId: 'p1', idpType: 'forge_self_hosted' }, context())).toThrow(expect.objectContaining({ code: 'idp.not_found' }));
  });

  it('an org policy moves through the machine; unchanged → no event; org IDPs have none', () => {
    const org = record('o1', { name: 'O', primaryDomain: 'o.example', state: 'active' }, instanceOwner('i1'));
    const instanceIdp = record('p1', idpState, instanceOwner('i1'));
    const loaded = given([{ kind: orgKind, record: org }, { kind: idpKind, record: instanceIdp }]);
    const set = setIdpPolicy.decide(loaded, { idpId: 'p1', orgId: 'o1', policy: 'deactivate' }, context());
    expect(set.events[0]).toMatchObject({ type: 'org.idp.policy.set', aggregateId: idpPolicyId('o1', 'p1'), owner: orgOwner('o1'), payload: { idpId: 'p1', policy: 'deactivate' } });
    expect(set.reply(noOutcome).resourceOwner).toEqual(instanceOwner('i1'));
    expect(setIdpPolicy.decide(loaded, { idpId: 'p1', orgId: 'o1', policy: 'inherit' }, context()).events).toEqual([]);
    const stored = record(idpPolicyId('o1', 'p1'), { idpId: 'p1', policy: 'activate' as const }, orgOwner('o1'));
    const withRow = given([{ kind: orgKind, record: org }, { kind: idpKind, record: instanceIdp }, { kind: idpPolicyKind, record: stored }]);
    expect(setIdpPolicy.decide(withRow, { idpId: 'p1', orgId: 'o1', policy: 'activate' }, context()).events).toEqual([]);
    const orgIdp = record('p2', idpState, orgOwner('o1'));
    expect(() => setIdpPolicy.decide(given([{ kind: orgKind, record: org }, { kind: idpKind, record: orgIdp }]), { idpId: 'p2', orgId: 'o1', policy: 'activate' }, context())).toThrow(
      expect.objectContaining({ code: 'idp.not_inherited' }),
    );
  });
});

describe('activeIdpsForOrg', () => {
  const stores: StoreAdapter[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  it('returns the IDPs active in the org, with the secret opened on demand and default scopes', async () => {
    const dir = tempDir('tessera-idps-');
    const store = await openLmdbStore({ path: dir });
    stores.push(store);
    const clock = createManualClock();
    const actors = new ActorSystem({
      store,
      clock,
      ids: createIdGenerator(() => clock.now()),
      sealer: { seal: (s) => `sealed:${s}`, open: (s) => s.replace(/^sealed:/, '') },
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      uniqueScopes: UNIQUE_SCOPES,
    });
    const as = { creator: 'tester' };
    const instance = { kind: 'instance', instanceId: 'i1' } as const;
    for (const orgId of ['o1', 'o2']) await actors.ask({ kind: 'org', instanceId: 'i1', orgId }, createOrg, { orgId, name: orgId, instanceDomain: 'i1.example' }, as);
    await actors.ask(instance, createIdp, create('a-on'), as);
    await actors.ask(instance, createIdp, create('b-off', { policy: 'deactivate' }), as);
    await actors.ask(instance, createIdp, create('c-on-but-org-off'), as);
    await actors.ask({ kind: 'org', instanceId: 'i1', orgId: 'o1' }, createIdp, create('d-own', { orgId: 'o1', config: { clientId: 'x', clientSecret: 's2', scopes: ['openid'], issuer: 'https://f.example' } }), as);
    await actors.ask({ kind: 'org', instanceId: 'i1', orgId: 'o2' }, createIdp, create('e-other-org', { orgId: 'o2' }), as);
    await actors.ask(instance, setIdpPolicy, { idpId: 'b-off', orgId: 'o1', policy: 'activate' }, as);
    await actors.ask(instance, setIdpPolicy, { idpId: 'c-on-but-org-off', orgId: 'o1', policy: 'deactivate' }, as);

    const active = await activeIdpsForOrg(actors, 'i1', 'o1');
    expect(active.map((i) => i.id)).toEqual(['a-on', 'b-off', 'd-own']);
    expect(active[0]).toMatchObject({ scopes: ['openid', 'profile', 'email'], owner: instanceOwner('i1') });
    expect(active[0]!.clientSecret()).toBe('plain');
    expect(active[2]).toMatchObject({ scopes: ['openid'], issuer: 'https://f.example', owner: orgOwner('o1') });
    expect(active[2]!.clientSecret()).toBe('s2');
    expect((await activeIdpsForOrg(actors, 'i1', 'o2')).map((i) => i.id)).toEqual(['a-on', 'c-on-but-org-off', 'e-other-org']);
    expect((await activeIdpsForOrg(actors, 'i1', undefined)).map((i) => i.id)).toEqual(['a-on', 'c-on-but-org-off']);
    expect(await activeIdpsForOrg(actors, 'i1', 'missing')).toEqual([]);
    await actors.stop();
  });
});
