/** Organization-domain deciders and evolve: given state, when command, then events / error code. */
import { describe, expect, it } from 'vitest';
import { foldRecord } from '../../actors/kernel/aggregate.js';
import type { StoredEvent } from '../../actors/kernel/ports.js';
import { addOrgDomain } from '../../actors/organization/commands/add-org-domain.js';
import { addOrgDomainVerification } from '../../actors/organization/commands/add-org-domain-verification.js';
import { patchOrgDomain } from '../../actors/organization/commands/patch-org-domain.js';
import { removeOrgDomain } from '../../actors/organization/commands/remove-org-domain.js';
import { removeOrg } from '../../actors/organization/commands/remove-org.js';
import { setPrimaryOrgDomain } from '../../actors/organization/commands/set-primary-org-domain.js';
import { verifyOrgDomain } from '../../actors/organization/commands/verify-org-domain.js';
import { MAX_ORG_DOMAINS, type OrgDomain } from '../../actors/organization/org-domain.js';
import { orgDomains, orgKind, type Org } from '../../actors/organization/org.js';
import { codeOf, context, given, noOutcome, NOW, record } from './decide.fixture.js';

const owner = { type: 'org', id: 'o1' } as const;
const entry = (domain: string, change: Partial<OrgDomain> = {}): OrgDomain => ({
  domain,
  isVerified: false,
  validationType: 'dns',
  validationToken: '',
  createdAt: NOW - 100,
  changedAt: NOW - 50,
  sequence: 7,
  ...change,
});
const acme = (domains: OrgDomain[]): Org => ({ name: 'Acme', primaryDomain: 'acme.localhost', state: 'active', domains });
const base = entry('acme.localhost', { isVerified: true });
const loadedWith = (...extra: OrgDomain[]) => given([{ kind: orgKind, record: record('o1', acme([base, ...extra]), owner) }]);

describe('addOrgDomain', () => {
  it('records org.domain.added on the org stream and claims the domain', () => {
    const decision = addOrgDomain.decide(loadedWith(), { orgId: 'o1', domain: 'acme.com', validationType: 'http' }, context());
    expect(decision.events).toEqual([
      { aggregateType: 'org', aggregateId: 'o1', type: 'org.domain.added', owner, creator: 'u-admin', payload: { domain: 'acme.com', validationType: 'http' } },
    ]);
    expect(decision.claims).toEqual([{ scope: 'org.domain', value: 'acme.com', holder: 'o1' }]);
  });

  it('refuses a domain the org already has, a missing org and more than the maximum', () => {
    expect(codeOf(() => addOrgDomain.decide(loadedWith(), { orgId: 'o1', domain: 'acme.localhost', validationType: 'dns' }, context()))).toBe('org.domain_taken');
    expect(codeOf(() => addOrgDomain.decide(given([]), { orgId: 'o1', domain: 'x.com', validationType: 'dns' }, context()))).toBe('org.not_found');
    const many = Array.from({ length: MAX_ORG_DOMAINS - 1 }, (_, i) => entry(`d${i}.com`));
    expect(codeOf(() => addOrgDomain.decide(loadedWith(...many), { orgId: 'o1', domain: 'x.com', validationType: 'dns' }, context()))).toBe('domain.limit_reached');
  });
});

describe('patchOrgDomain', () => {
  it('records org.domain.changed only when the type changes', () => {
    const loaded = loadedWith(entry('acme.com'));
    expect(patchOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.com', validationType: 'dns' }, context()).events).toEqual([]);
    expect(patchOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.com' }, context()).reply(noOutcome)).toEqual({
      id: 'acme.com',
      sequence: 7,
      changeDate: NOW - 50,
      resourceOwner: owner,
    });
    const changed = patchOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.com', validationType: 'http' }, context());
    expect(changed.events.map((e) => [e.type, e.payload])).toEqual([['org.domain.changed', { domain: 'acme.com', validationType: 'http' }]]);
    expect(codeOf(() => patchOrgDomain.decide(loaded, { orgId: 'o1', domain: 'nope.com' }, context()))).toBe('domain.not_found');
  });
});

describe('validation and verification', () => {
  it('records a challenge with the given or current type; refuses a verified domain', () => {
    const loaded = loadedWith(entry('acme.com', { validationType: 'http' }));
    const kept = addOrgDomainVerification.decide(loaded, { orgId: 'o1', domain: 'acme.com', token: 't1' }, context());
    expect(kept.events[0]!.payload).toEqual({ domain: 'acme.com', validationType: 'http', token: 't1' });
    expect(kept.reply(noOutcome).validationType).toBe('http');
    const switched = addOrgDomainVerification.decide(loaded, { orgId: 'o1', domain: 'acme.com', token: 't2', validationType: 'dns' }, context());
    expect(switched.events[0]!.payload).toEqual({ domain: 'acme.com', validationType: 'dns', token: 't2' });
    expect(codeOf(() => addOrgDomainVerification.decide(loaded, { orgId: 'o1', domain: 'acme.localhost', token: 't' }, context()))).toBe('domain.already_verified');
  });

  it('verifies only with the pending token; a verified domain records nothing', () => {
    const pending = loadedWith(entry('acme.com', { validationToken: 't1' }));
    expect(verifyOrgDomain.decide(pending, { orgId: 'o1', domain: 'acme.com', token: 't1' }, context()).events.map((e) => e.type)).toEqual(['org.domain.verified']);
    expect(codeOf(() => verifyOrgDomain.decide(pending, { orgId: 'o1', domain: 'acme.com', token: 'old' }, context()))).toBe('domain.validation_outdated');
    expect(codeOf(() => verifyOrgDomain.decide(loadedWith(entry('acme.com')), { orgId: 'o1', domain: 'acme.com', token: 't' }, context()))).toBe('domain.validation_missing');
    expect(verifyOrgDomain.decide(loadedWith(), { orgId: 'o1', domain: 'acme.localhost', token: 'x' }, context()).events).toEqual([]);
  });
});

describe('setPrimaryOrgDomain and removeOrgDomain', () => {
  it('sets a verified domain primary; the current one is a no-op; an unverified one is refused', () => {
    const loaded = loadedWith(entry('acme.com', { isVerified: true }), entry('new.com'));
    expect(setPrimaryOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.com' }, context()).events.map((e) => e.type)).toEqual(['org.domain.primary.set']);
    expect(setPrimaryOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.localhost' }, context()).events).toEqual([]);
    expect(codeOf(() => setPrimaryOrgDomain.decide(loaded, { orgId: 'o1', domain: 'new.com' }, context()))).toBe('domain.not_verified');
  });

  it('removes a domain and releases it; the primary domain stays', () => {
    const loaded = loadedWith(entry('acme.com'));
    const removed = removeOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.com' }, context());
    expect(removed.events.map((e) => e.type)).toEqual(['org.domain.removed']);
    expect(removed.releases).toEqual([{ scope: 'org.domain', value: 'acme.com' }]);
    expect(codeOf(() => removeOrgDomain.decide(loaded, { orgId: 'o1', domain: 'acme.localhost' }, context()))).toBe('domain.is_primary');
  });

  it('removing the org releases every domain', () => {
    const decision = removeOrg.decide(loadedWith(entry('acme.com')), { orgId: 'o1' }, context());
    expect(decision.releases?.filter((r) => r.scope === 'org.domain').map((r) => r.value)).toEqual(['acme.localhost', 'acme.com']);
  });
});

describe('evolve', () => {
  let position = 0;
  const event = (type: string, payload: unknown): StoredEvent => {
    position += 1;
    return { instanceId: 'i1', aggregateType: 'org', aggregateId: 'o1', type, owner, creator: 'u', payload, version: position, position, createdAt: NOW + position };
  };

  it('folds the generated domain, a new verified domain made primary, and a removal', () => {
    const folded = foldRecord(orgKind, 'o1', undefined, [
      event('org.added', { name: 'Acme', primaryDomain: 'acme.localhost' }),
      event('org.domain.added', { domain: 'acme.com', validationType: 'dns' }),
      event('org.domain.verification.added', { domain: 'acme.com', validationType: 'dns', token: 'tok' }),
      event('org.domain.verified', { domain: 'acme.com' }),
      event('org.domain.primary.set', { domain: 'acme.com' }),
      event('org.domain.added', { domain: 'gone.com', validationType: 'http' }),
      event('org.domain.removed', { domain: 'gone.com' }),
    ])!;
    expect(folded.state.primaryDomain).toBe('acme.com');
    expect(orgDomains(folded.state).map((d) => [d.domain, d.isVerified, d.validationToken])).toEqual([
      ['acme.localhost', true, ''],
      ['acme.com', true, ''],
    ]);
    expect(orgDomains(folded.state)[1]!.sequence).toBe(5);
  });

  it('reads a row written before domains existed as its primary domain, verified', () => {
    const legacy: Org = { name: 'Old', primaryDomain: 'old.localhost', state: 'active' };
    expect(orgDomains(legacy).map((d) => [d.domain, d.isVerified])).toEqual([['old.localhost', true]]);
  });
});
