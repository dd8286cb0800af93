/** Grant deciders, evolve and userRolesForProjects: given state, when command, then events / claims / error code. */
import { describe, expect, it } from 'vitest';
import type { AggregateKind, AggregateRecord } from '../../actors/kernel/aggregate.js';
import { addProjectGrant } from '../../actors/organization/commands/add-project-grant.js';
import { addUserGrant, type AddUserGrant } from '../../actors/organization/commands/add-user-grant.js';
import { changeProjectGrant } from '../../actors/organization/commands/change-project-grant.js';
import { changeProjectGrantState } from '../../actors/organization/commands/change-project-grant-state.js';
import { changeUserGrant } from '../../actors/organization/commands/change-user-grant.js';
import { changeUserGrantState } from '../../actors/organization/commands/change-user-grant-state.js';
import { removeProjectGrant } from '../../actors/organization/commands/remove-project-grant.js';
import { removeUserGrant } from '../../actors/organization/commands/remove-user-grant.js';
import { orgKind, type Org } from '../../actors/organization/org.js';
import { projectKind, type Project } from '../../actors/organization/project.js';
import { projectGrantKind, type ProjectGrant } from '../../actors/organization/project-grant.js';
import { userKind, type User } from '../../actors/organization/user.js';
import { userGrantsKind, type UserGrants } from '../../actors/organization/user-grants.js';
import { userRolesForProjects } from '../../actors/organization/user-roles.js';
import { codeOf, context, given, noOutcome, NOW, record } from './decide.fixture.js';
import { applyDecision } from './fold.fixture.js';

const o1 = { type: 'org', id: 'o1' } as const;
const o2 = { type: 'org', id: 'o2' } as const;
const orgRow = (id: string, domain: string) => record<Org>(id, { name: id, primaryDomain: domain, state: 'active' } as Org, { type: 'org', id });
const roleOf = (key: string) => ({ key, displayName: key, group: '', createdAt: NOW, changedAt: NOW, sequence: 1 });
const projectRow = (roles: string[]) =>
  record<Project>('p1', { orgId: 'o1', name: 'Portal', state: 'active', roles: roles.map(roleOf), projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false }, o1);
const userRow = (id: string, orgId: string) => record<User>(id, { type: 'machine', orgId, username: id, state: 'active' } as User, { type: 'org', id: orgId });
const grantRow = (roleKeys: string[], state: 'active' | 'inactive' = 'active') => record<ProjectGrant>('pg1', { projectId: 'p1', grantedOrgId: 'o2', roleKeys, state }, o1);

const base = [
  { kind: orgKind, record: orgRow('o1', 'acme.localhost') },
  { kind: orgKind, record: orgRow('o2', 'beta.localhost') },
  { kind: projectKind, record: projectRow(['admin', 'reader', 'writer']) },
  { kind: userKind, record: userRow('u1', 'o1') },
  { kind: userKind, record: userRow('u2', 'o2') },
];

describe('project grant deciders', () => {
  const add = { grantId: 'pg1', projectId: 'p1', orgId: 'o1', grantedOrgId: 'o2', roleKeys: ['reader', 'admin', 'reader'] };

  it('records project.grant.added with sorted keys and claims (project, org)', () => {
    const decision = addProjectGrant.decide(given(base), add, context());
    expect(decision.events).toEqual([
      { aggregateType: 'project.grant', aggregateId: 'pg1', type: 'project.grant.added', owner: o1, creator: 'u-admin', payload: { projectId: 'p1', grantedOrgId: 'o2', roleKeys: ['admin', 'reader'] } },
    ]);
    expect(decision.claims).toEqual([{ scope: 'project.grant', value: 'p1:o2', holder: 'pg1' }]);
    expect(applyDecision(projectGrantKind, 'pg1', undefined, decision)?.state).toEqual({ projectId: 'p1', grantedOrgId: 'o2', roleKeys: ['admin', 'reader'], state: 'active' });
  });

  it('refuses unknown roles, the own org, a missing org or project, an existing id', () => {
    expect(codeOf(() => addProjectGrant.decide(given(base), { ...add, roleKeys: ['ghost'] }, context()))).toBe('project_grant.role_not_found');
    expect(codeOf(() => addProjectGrant.decide(given(base), { ...add, grantedOrgId: 'o1' }, context()))).toBe('project_grant.own_org');
    expect(codeOf(() => addProjectGrant.decide(given(base), { ...add, grantedOrgId: 'o9' }, context()))).toBe('org.not_found');
    expect(codeOf(() => addProjectGrant.decide(given(base.slice(0, 2)), add, context()))).toBe('project.not_found');
    expect(codeOf(() => addProjectGrant.decide(given([...base, { kind: projectGrantKind, id: 'pg1', version: 3 }]), add, context()))).toBe('project_grant.exists');
  });

  it('changes keys (a no-op records nothing), (de)activates and removes with a release', () => {
    const loaded = given([...base, { kind: projectGrantKind, record: grantRow(['admin']) }]);
    expect(changeProjectGrant.decide(loaded, { grantId: 'pg1', projectId: 'p1', orgId: 'o1', roleKeys: ['admin'] }, context()).events).toEqual([]);
    const changed = changeProjectGrant.decide(loaded, { grantId: 'pg1', projectId: 'p1', orgId: 'o1', roleKeys: ['writer', 'admin'] }, context());
    expect(changed.events.map((e) => e.payload)).toEqual([{ roleKeys: ['admin', 'writer'] }]);
    expect(codeOf(() => changeProjectGrant.decide(loaded, { grantId: 'pg1', projectId: 'p1', orgId: 'o1', roleKeys: ['x'] }, context()))).toBe('project_grant.role_not_found');
    expect(changeProjectGrantState.decide(loaded, { grantId: 'pg1', orgId: 'o1', action: 'activate' }, context()).events).toEqual([]);
    const off = changeProjectGrantState.decide(loaded, { grantId: 'pg1', orgId: 'o1', action: 'deactivate' }, context());
    expect(applyDecision(projectGrantKind, 'pg1', grantRow(['admin']), off)?.state.state).toBe('inactive');
    const removed = removeProjectGrant.decide(loaded, { grantId: 'pg1', orgId: 'o1' }, context());
    expect(removed.releases).toEqual([{ scope: 'project.grant', value: 'p1:o2' }]);
    expect(applyDecision(projectGrantKind, 'pg1', grantRow(['admin']), removed)).toBeUndefined();
    expect(codeOf(() => removeProjectGrant.decide(loaded, { grantId: 'pg1', orgId: 'o2' }, context()))).toBe('project_grant.not_found');
  });
});

describe('user grant deciders', () => {
  const own: AddUserGrant = { grantId: 'g1', userId: 'u1', orgId: 'o1', projectId: 'p1', projectOrgId: 'o1', projectGrantId: '', roleKeys: ['reader'] };
  const foreign: AddUserGrant = { grantId: 'g2', userId: 'u2', orgId: 'o2', projectId: 'p1', projectOrgId: 'o1', projectGrantId: 'pg1', roleKeys: ['reader'] };
  const withGrant = (keys = ['reader']) => given([...base, { kind: projectGrantKind, record: grantRow(keys) }]);

  it('records user.grant.added on the user stream and claims the grant id', () => {
    const decision = addUserGrant.decide(given(base), own, context());
    expect(decision.events).toEqual([
      { aggregateType: 'user.grants', aggregateId: 'u1', type: 'user.grant.added', owner: o1, creator: 'u-admin', payload: { grantId: 'g1', userId: 'u1', projectId: 'p1', projectGrantId: '', roleKeys: ['reader'] } },
    ]);
    expect(decision.claims).toEqual([{ scope: 'user.grant.id', value: 'g1', holder: 'u1' }]);
    const row = applyDecision(userGrantsKind, 'u1', undefined, decision);
    expect(row?.state).toEqual({ userId: 'u1', orgId: 'o1', grants: [{ id: 'g1', projectId: 'p1', projectGrantId: '', roleKeys: ['reader'], state: 'active', createdAt: NOW, changedAt: NOW, sequence: 10 }] });
  });

  it('needs a matching project grant, and a subset of its roles, outside the project org', () => {
    expect(addUserGrant.decide(withGrant(), foreign, context()).events).toHaveLength(1);
    expect(codeOf(() => addUserGrant.decide(withGrant(), { ...foreign, projectGrantId: '' }, context()))).toBe('user_grant.project_grant_required');
    expect(codeOf(() => addUserGrant.decide(given(base), foreign, context()))).toBe('user_grant.project_grant_invalid');
    expect(codeOf(() => addUserGrant.decide(withGrant(), { ...foreign, roleKeys: ['admin'] }, context()))).toBe('user_grant.role_not_granted');
    expect(codeOf(() => addUserGrant.decide(withGrant(), { ...foreign, roleKeys: ['ghost'] }, context()))).toBe('user_grant.role_not_found');
    expect(codeOf(() => addUserGrant.decide(withGrant(), { ...own, projectGrantId: 'pg1' }, context()))).toBe('user_grant.project_grant_invalid');
    expect(codeOf(() => addUserGrant.decide(given(base), { ...own, userId: 'u2' }, context()))).toBe('user.not_found');
  });

  it('keeps one grant per (user, project); changes, (de)activates and removes one grant', () => {
    const row = applyDecision(userGrantsKind, 'u1', undefined, addUserGrant.decide(given(base), own, context()))!;
    const loaded = given([...base, { kind: userGrantsKind, record: row }]);
    expect(codeOf(() => addUserGrant.decide(loaded, { ...own, grantId: 'g9' }, context()))).toBe('user_grant.exists');
    expect(changeUserGrant.decide(loaded, { ...own, roleKeys: ['reader'] }, context()).events).toEqual([]);
    const changed = changeUserGrant.decide(loaded, { ...own, roleKeys: ['admin', 'reader'] }, context());
    expect(applyDecision(userGrantsKind, 'u1', row, changed)?.state.grants[0]?.roleKeys).toEqual(['admin', 'reader']);
    const off = changeUserGrantState.decide(loaded, { grantId: 'g1', userId: 'u1', orgId: 'o1', action: 'deactivate' }, context());
    expect(applyDecision(userGrantsKind, 'u1', row, off)?.state.grants[0]?.state).toBe('inactive');
    expect(off.reply(noOutcome).id).toBe('g1');
    const removed = removeUserGrant.decide(loaded, { grantId: 'g1', userId: 'u1', orgId: 'o1' }, context());
    expect(removed.releases).toEqual([{ scope: 'user.grant.id', value: 'g1' }]);
    expect(applyDecision(userGrantsKind, 'u1', row, removed)?.state.grants).toEqual([]);
    expect(codeOf(() => removeUserGrant.decide(loaded, { grantId: 'g2', userId: 'u1', orgId: 'o1' }, context()))).toBe('user_grant.not_found');
  });
});

describe('userRolesForProjects', () => {
  function reader(rows: { kind: AggregateKind<unknown>; record: AggregateRecord<unknown> }[]) {
    return {
      async readRecord<S>(_instanceId: string, kind: AggregateKind<S>, id: string): Promise<AggregateRecord<S> | undefined> {
        return rows.find((r) => r.kind.type === kind.type && r.record.id === id)?.record as AggregateRecord<S> | undefined;
      },
    };
  }
  const grant = (id: string, projectId: string, roleKeys: string[], extra: Partial<UserGrants['grants'][number]> = {}) => ({
    id, projectId, projectGrantId: '', roleKeys, state: 'active' as const, createdAt: NOW, changedAt: NOW, sequence: 1, ...extra,
  });
  const p2 = record<Project>('p2', { ...projectRow(['viewer']).state, name: 'Other' }, o1);
  const rows = (grants: UserGrants['grants'], userId = 'u1', orgId = 'o1', extra: { kind: AggregateKind<unknown>; record: AggregateRecord<unknown> }[] = []) => [
    ...base.map((b) => ({ kind: b.kind as AggregateKind<unknown>, record: b.record as AggregateRecord<unknown> })),
    { kind: projectKind as AggregateKind<unknown>, record: p2 as AggregateRecord<unknown> },
    { kind: userGrantsKind as AggregateKind<unknown>, record: record<UserGrants>(userId, { userId, orgId, grants }, { type: 'org', id: orgId }) as AggregateRecord<unknown> },
    ...extra,
  ];

  it('maps project → role → org → primary domain, for active grants and existing roles only', async () => {
    const actors = reader(rows([grant('g1', 'p1', ['admin', 'removed-role', 'reader']), grant('g2', 'p2', ['viewer'], { state: 'inactive' })]));
    const roles = await userRolesForProjects(actors, 'i1', 'u1');
    expect(roles).toEqual(new Map([['p1', new Map([['admin', new Map([['o1', 'acme.localhost']])], ['reader', new Map([['o1', 'acme.localhost']])]])]]));
    const json = Object.fromEntries([...roles.get('p1')!].map(([k, v]) => [k, Object.fromEntries(v)]));
    expect(json).toEqual({ admin: { o1: 'acme.localhost' }, reader: { o1: 'acme.localhost' } });
  });

  it('narrows to the asked projects and to the project grant of a foreign user', async () => {
    const both = rows([grant('g1', 'p1', ['admin', 'reader'], { projectGrantId: 'pg1' })], 'u2', 'o2', [
      { kind: projectGrantKind as AggregateKind<unknown>, record: grantRow(['reader']) as AggregateRecord<unknown> },
    ]);
    expect(await userRolesForProjects(reader(both), 'i1', 'u2')).toEqual(new Map([['p1', new Map([['reader', new Map([['o2', 'beta.localhost']])]])]]));
    expect((await userRolesForProjects(reader(both), 'i1', 'u2', ['p2'])).size).toBe(0);
    const inactive = rows([grant('g1', 'p1', ['reader'], { projectGrantId: 'pg1' })], 'u2', 'o2', [
      { kind: projectGrantKind as AggregateKind<unknown>, record: grantRow(['reader'], 'inactive') as AggregateRecord<unknown> },
    ]);
    expect((await userRolesForProjects(reader(inactive), 'i1', 'u2')).size).toBe(0);
    expect((await userRolesForProjects(reader(both), 'i1', 'nobody')).size).toBe(0);
  });
});
