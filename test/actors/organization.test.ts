/** Organization deciders and evolve: given state, when command, then events / error code. */
import { describe, expect, it } from 'vitest';
import { instanceSettingsKind } from '../../actors/instance/settings.js';
import { createOrg } from '../../actors/organization/commands/create-org.js';
import { patchOrg } from '../../actors/organization/commands/patch-org.js';
import { removeOrg } from '../../actors/organization/commands/remove-org.js';
import { generatedOrgDomain, orgKind, type Org } from '../../actors/organization/org.js';
import { codeOf, context, given, noOutcome, record } from './decide.fixture.js';

const acme = (): Org => ({ name: 'Acme', primaryDomain: 'acme.localhost', state: 'active' });
const owner = { type: 'org', id: 'o1' } as const;

describe('createOrg', () => {
  it('records org.added and claims name and generated domain', () => {
    const decision = createOrg.decide(given([]), { orgId: 'o1', name: '  Acme  Corp ', instanceDomain: 'example.com' }, context());
    expect(decision.events).toEqual([
      { aggregateType: 'org', aggregateId: 'o1', type: 'org.added', owner, creator: 'u-admin', payload: { name: 'Acme  Corp', primaryDomain: 'acme-corp.example.com' } },
    ]);
    expect(decision.claims).toEqual([
      { scope: 'org.name', value: 'acme  corp', holder: 'o1' },
      { scope: 'org.domain', value: 'acme-corp.example.com', holder: 'o1' },
    ]);
  });

  it('refuses an id whose stream exists (also a removed one)', () => {
    expect(codeOf(() => createOrg.decide(given([{ kind: orgKind, id: 'o1', version: 2 }]), { orgId: 'o1', name: 'X', instanceDomain: 'd' }, context()))).toBe('org.exists');
  });
});

describe('patchOrg', () => {
  const current = given([{ kind: orgKind, record: record('o1', acme(), owner) }]);

  it('records nothing when nothing changes', () => {
    expect(patchOrg.decide(current, { orgId: 'o1', name: 'Acme' }, context()).events).toEqual([]);
    expect(patchOrg.decide(current, { orgId: 'o1' }, context()).events).toEqual([]);
    const details = patchOrg.decide(current, { orgId: 'o1' }, context()).reply(noOutcome);
    expect(details).toEqual({ id: 'o1', sequence: 1, changeDate: record('o1', acme(), owner).meta.changedAt, resourceOwner: owner });
  });

  it('renames: new claim, old released; a case-only rename keeps the claim', () => {
    const renamed = patchOrg.decide(current, { orgId: 'o1', name: 'Globex' }, context());
    expect(renamed.events.map((e) => e.type)).toEqual(['org.changed']);
    expect(renamed.claims).toEqual([{ scope: 'org.name', value: 'globex', holder: 'o1' }]);
    expect(renamed.releases).toEqual([{ scope: 'org.name', value: 'acme' }]);
    const recased = patchOrg.decide(current, { orgId: 'o1', name: 'ACME' }, context());
    expect(recased.events.map((e) => e.type)).toEqual(['org.changed']);
    expect(recased.claims).toEqual([]);
  });

  it('is not found for an absent org', () => {
    expect(codeOf(() => patchOrg.decide(given([]), { orgId: 'o1', name: 'x' }, context()))).toBe('org.not_found');
  });
});

describe('removeOrg', () => {
  it('releases name and domain', () => {
    const decision = removeOrg.decide(given([{ kind: orgKind, record: record('o1', acme(), owner) }]), { orgId: 'o1' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['org.removed']);
    expect(decision.releases).toEqual([
      { scope: 'org.name', value: 'acme' },
      { scope: 'org.domain', value: 'acme.localhost' },
    ]);
  });

  it('refuses the instance default org', () => {
    const loaded = given([
      { kind: orgKind, record: record('o1', acme(), owner) },
      { kind: instanceSettingsKind, record: record('i1', { defaultOrgId: 'o1', features: {} }, { type: 'instance', id: 'i1' }) },
    ]);
    expect(codeOf(() => removeOrg.decide(loaded, { orgId: 'o1' }, context()))).toBe('org.is_default');
  });
});

describe('orgKind.evolve', () => {
  it('folds added → changed → removed', () => {
    const base = { aggregateType: 'org', aggregateId: 'o1', owner, creator: '', instanceId: 'i1', createdAt: 1 };
    const added = orgKind.evolve(undefined, { ...base, type: 'org.added', payload: { name: 'A', primaryDomain: 'a.d' }, version: 1, position: 1 });
    expect(added).toEqual({
      name: 'A',
      primaryDomain: 'a.d',
      state: 'active',
      domains: [{ domain: 'a.d', isVerified: true, validationType: 'dns', validationToken: '', createdAt: 1, changedAt: 1, sequence: 1 }],
    });
    const changed = orgKind.evolve(added, { ...base, type: 'org.changed', payload: { name: 'B' }, version: 2, position: 2 });
    expect(changed?.name).toBe('B');
    expect(orgKind.evolve(changed, { ...base, type: 'org.removed', payload: {}, version: 3, position: 3 })).toBeUndefined();
  });

  it.each([
    ['Acme Corp', 'x.io', 'acme-corp.x.io'],
    ['Ünïcödé GmbH', 'x.io', 'unicode-gmbh.x.io'],
    ['!!!', 'x.io', 'org.x.io'],
  ])('generates the domain of %s', (name, domain, expected) => {
    expect(generatedOrgDomain(name, domain)).toBe(expected);
  });
});
