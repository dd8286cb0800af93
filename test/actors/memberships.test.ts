/** Membership deciders: add (contexts, roles), change (no-op, last owner), remove (last owner). */
import { describe, expect, it } from 'vitest';
import { addMembership } from '../../actors/instance/commands/add-membership.js';
import { changeMembership } from '../../actors/instance/commands/change-membership.js';
import { removeMembership } from '../../actors/instance/commands/remove-membership.js';
import { membershipKind, parseMembershipId, type Membership } from '../../actors/instance/membership.js';
import { orgKind } from '../../actors/organization/org.js';
import { projectKind } from '../../actors/organization/project.js';
import { userKind } from '../../actors/organization/user.js';
import type { Owner } from '../../actors/index.js';
import { codeOf, context, given, record } from './decide.fixture.js';

const instanceOwner = { type: 'instance', id: 'i1' } as const;
const orgOwner = { type: 'org', id: 'o1' } as const;
const user = (id: string, orgId = 'o1') => ({ kind: userKind, record: record(id, { orgId }, orgOwner) });
const org = (id = 'o1') => ({ kind: orgKind, record: record(id, { name: id, primaryDomain: `${id}.localhost`, state: 'active' }, { type: 'org', id }) });
const member = (contextType: Membership['contextType'], contextId: string, userId: string, roles: string[], owner: Owner = instanceOwner) => ({
  kind: membershipKind,
  record: record(`${contextType}:${contextId}:${userId}`, { contextType, contextId, userId, roles }, owner),
});

describe('parseMembershipId', () => {
  it('splits valid ids and refuses others', () => {
    expect(parseMembershipId('org:o1:u1')).toEqual({ contextType: 'org', contextId: 'o1', userId: 'u1' });
    expect(parseMembershipId('team:o1:u1')).toBeUndefined();
    expect(parseMembershipId('org::u1')).toBeUndefined();
    expect(parseMembershipId('org:o1')).toBeUndefined();
  });
});

describe('addMembership', () => {
  it('adds an org membership owned by the org', () => {
    const decision = addMembership.decide(given([user('u1'), org()]), { contextType: 'org', contextId: 'o1', userId: 'u1', roles: ['ORG_OWNER'] }, context());
    expect(decision.events.map((e) => [e.type, e.aggregateId, e.owner])).toEqual([['org.member.added', 'org:o1:u1', orgOwner]]);
  });

  it('checks the context exists, the roles fit it and (context, user) is unique', () => {
    const add = (c: Partial<Parameters<typeof addMembership.decide>[1]>, loaded = given([user('u1'), org()])) =>
      codeOf(() => addMembership.decide(loaded, { contextType: 'org', contextId: 'o1', userId: 'u1', roles: ['ORG_OWNER'], ...c }, context()));
    expect(add({ contextId: 'o2' })).toBe('org.not_found');
    expect(add({ roles: ['IAM_OWNER'] })).toBe('membership.role_invalid');
    expect(add({ contextType: 'instance', contextId: 'other', roles: ['IAM_OWNER'] })).toBe('membership.context_invalid');
    expect(add({}, given([user('u1'), org(), member('org', 'o1', 'u1', ['ORG_OWNER_VIEWER'], orgOwner)]))).toBe('membership.exists');
    expect(add({ userId: 'u9' })).toBe('user.not_found');
  });

  it('adds a project membership owned by the project organization; a foreign project is not found', () => {
    const project = { kind: projectKind, record: record('p1', { orgId: 'o1', name: 'P', state: 'active', roles: [] }, orgOwner) };
    const c = { contextType: 'project', contextId: 'p1', userId: 'u1', roles: ['PROJECT_OWNER'], ownerOrgId: 'o1' } as const;
    const decision = addMembership.decide(given([user('u1'), org(), project]), c, context());
    expect(decision.events.map((e) => [e.type, e.owner])).toEqual([['project.member.added', orgOwner]]);
    expect(codeOf(() => addMembership.decide(given([user('u1'), org(), org('o2'), project]), { ...c, ownerOrgId: 'o2' }, context()))).toBe('project.not_found');
  });
});

describe('changeMembership', () => {
  const admin = member('instance', 'i1', 'u1', ['IAM_OWNER']);

  it('records nothing for the same set of roles in another order', () => {
    const loaded = given([member('instance', 'i1', 'u1', ['IAM_OWNER', 'IAM_OWNER_VIEWER'])]);
    expect(changeMembership.decide(loaded, { membershipId: 'instance:i1:u1', roles: ['IAM_OWNER_VIEWER', 'IAM_OWNER'] }, context()).events).toEqual([]);
  });

  it('refuses taking IAM_OWNER from the last owner; allows it with a live other owner', () => {
    const change = { membershipId: 'instance:i1:u1', roles: ['IAM_OWNER_VIEWER'] };
    expect(codeOf(() => changeMembership.decide(given([admin]), change, context()))).toBe('membership.last_owner');
    const other = [member('instance', 'i1', 'u2', ['IAM_OWNER']), user('u2'), org()];
    const ok = changeMembership.decide(given([admin, ...other]), { ...change, otherOwners: [{ userId: 'u2', orgId: 'o1' }] }, context());
    expect(ok.events.map((e) => [e.type, e.payload])).toEqual([
      ['instance.member.changed', { contextType: 'instance', contextId: 'i1', userId: 'u1', roles: ['IAM_OWNER_VIEWER'] }],
    ]);
    // a candidate whose user is gone, or whose org was removed, is no proof
    expect(codeOf(() => changeMembership.decide(given([admin, other[0]!, org()]), { ...change, otherOwners: [{ userId: 'u2', orgId: 'o1' }] }, context()))).toBe(
      'membership.last_owner',
    );
    expect(codeOf(() => changeMembership.decide(given([admin, other[0]!, user('u2')]), { ...change, otherOwners: [{ userId: 'u2', orgId: 'o1' }] }, context()))).toBe(
      'membership.last_owner',
    );
  });

  it('checks the roles against the context and 404s a missing membership or one of a removed org', () => {
    expect(codeOf(() => changeMembership.decide(given([admin]), { membershipId: 'instance:i1:u1', roles: ['ORG_OWNER'] }, context()))).toBe('membership.role_invalid');
    expect(codeOf(() => changeMembership.decide(given([]), { membershipId: 'instance:i1:u1', roles: ['IAM_OWNER'] }, context()))).toBe('membership.not_found');
    const orphan = given([member('org', 'o1', 'u1', ['ORG_OWNER'], orgOwner)]);
    expect(codeOf(() => changeMembership.decide(orphan, { membershipId: 'org:o1:u1', roles: ['ORG_OWNER_VIEWER'] }, context()))).toBe('membership.not_found');
  });
});

describe('removeMembership', () => {
  it('removes a membership and protects the last instance owner', () => {
    const loaded = given([member('org', 'o1', 'u1', ['ORG_OWNER'], orgOwner), org()]);
    expect(removeMembership.decide(loaded, { membershipId: 'org:o1:u1' }, context()).events.map((e) => e.type)).toEqual(['org.member.removed']);
    const admin = member('instance', 'i1', 'u1', ['IAM_OWNER']);
    expect(codeOf(() => removeMembership.decide(given([admin]), { membershipId: 'instance:i1:u1' }, context()))).toBe('membership.last_owner');
    // the member itself is never proof of another owner
    expect(codeOf(() => removeMembership.decide(given([admin, user('u1'), org()]), { membershipId: 'instance:i1:u1', otherOwners: [{ userId: 'u1', orgId: 'o1' }] }, context()))).toBe(
      'membership.last_owner',
    );
  });
});
