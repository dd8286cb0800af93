/** Project deciders and evolve: given state, when command, then events / claims / error code. */
import { describe, expect, it } from 'vitest';
import { applicationKind, type Application } from '../../actors/organization/application.js';
import { activateProject } from '../../actors/organization/commands/activate-project.js';
import { addProjectRole } from '../../actors/organization/commands/add-project-role.js';
import { changeProjectRole } from '../../actors/organization/commands/change-project-role.js';
import { createProject } from '../../actors/organization/commands/create-project.js';
import { deactivateProject } from '../../actors/organization/commands/deactivate-project.js';
import { patchProject } from '../../actors/organization/commands/patch-project.js';
import { removeProject } from '../../actors/organization/commands/remove-project.js';
import { removeProjectRole } from '../../actors/organization/commands/remove-project-role.js';
import { orgKind, type Org } from '../../actors/organization/org.js';
import { projectKind, type Project } from '../../actors/organization/project.js';
import { codeOf, context, given, noOutcome, NOW, record } from './decide.fixture.js';
import { applyDecision } from './fold.fixture.js';

const owner = { type: 'org', id: 'o1' } as const;
const org = { kind: orgKind, record: record<Org>('o1', { name: 'Acme', primaryDomain: 'acme.localhost', state: 'active' }, owner) };
const settings = { projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false };
const portal = (overrides: Partial<Project> = {}): Project => ({ orgId: 'o1', name: 'Portal', state: 'active', roles: [], ...settings, ...overrides });
const role = { key: 'admin', displayName: 'Admin', group: 'ops', createdAt: NOW - 100, changedAt: NOW - 50, sequence: 3 };
const withProject = (project: Project = portal()) => given([org, { kind: projectKind, record: record('p1', project, owner, 3) }]);

describe('createProject', () => {
  it('records project.added and claims the name per organization', () => {
    const decision = createProject.decide(given([org]), { projectId: 'p1', orgId: 'o1', name: ' Portal ', ...settings, projectRoleCheck: true }, context());
    expect(decision.events).toEqual([
      {
        aggregateType: 'project',
        aggregateId: 'p1',
        type: 'project.added',
        owner,
        creator: 'u-admin',
        payload: { name: 'Portal', projectRoleAssertion: false, projectRoleCheck: true, hasProjectCheck: false },
      },
    ]);
    expect(decision.claims).toEqual([{ scope: 'project.name', value: 'o1:portal', holder: 'p1' }]);
    const row = applyDecision(projectKind, 'p1', undefined, decision);
    expect(row?.state).toEqual({ orgId: 'o1', name: 'Portal', state: 'active', roles: [], ...settings, projectRoleCheck: true });
  });

  it('refuses a missing organization and an existing id', () => {
    expect(codeOf(() => createProject.decide(given([]), { projectId: 'p1', orgId: 'o1', name: 'X', ...settings }, context()))).toBe('org.not_found');
    expect(codeOf(() => createProject.decide(given([org, { kind: projectKind, id: 'p1', version: 2 }]), { projectId: 'p1', orgId: 'o1', name: 'X', ...settings }, context()))).toBe(
      'project.exists',
    );
  });
});

describe('patchProject', () => {
  it('records nothing when nothing changes, and answers the current details', () => {
    const decision = patchProject.decide(withProject(), { projectId: 'p1', orgId: 'o1', name: 'Portal', projectRoleCheck: false }, context());
    expect(decision.events).toEqual([]);
    expect(decision.reply(noOutcome)).toMatchObject({ id: 'p1', sequence: 3 });
  });

  it('records only the changed fields; a rename moves the claim, a case-only rename keeps it', () => {
    const changed = patchProject.decide(withProject(), { projectId: 'p1', orgId: 'o1', name: 'Shop', hasProjectCheck: true, projectRoleCheck: false }, context());
    expect(changed.events.map((e) => e.payload)).toEqual([{ name: 'Shop', hasProjectCheck: true }]);
    expect(changed.claims).toEqual([{ scope: 'project.name', value: 'o1:shop', holder: 'p1' }]);
    expect(changed.releases).toEqual([{ scope: 'project.name', value: 'o1:portal' }]);
    const recased = patchProject.decide(withProject(), { projectId: 'p1', orgId: 'o1', name: 'PORTAL' }, context());
    expect(recased.claims).toEqual([]);
  });

  it('is not found in another organization or once the organization is gone', () => {
    expect(codeOf(() => patchProject.decide(withProject(portal({ orgId: 'o2' })), { projectId: 'p1', orgId: 'o1', name: 'x' }, context()))).toBe('project.not_found');
    const orphan = given([{ kind: projectKind, record: record('p1', portal(), owner) }]);
    expect(codeOf(() => patchProject.decide(orphan, { projectId: 'p1', orgId: 'o1', name: 'x' }, context()))).toBe('project.not_found');
  });
});

describe('activateProject / deactivateProject', () => {
  it('records a state change once; repeating it is a no-op', () => {
    expect(deactivateProject.decide(withProject(), { projectId: 'p1', orgId: 'o1' }, context()).events.map((e) => e.type)).toEqual(['project.deactivated']);
    expect(deactivateProject.decide(withProject(portal({ state: 'inactive' })), { projectId: 'p1', orgId: 'o1' }, context()).events).toEqual([]);
    expect(activateProject.decide(withProject(portal({ state: 'inactive' })), { projectId: 'p1', orgId: 'o1' }, context()).events.map((e) => e.type)).toEqual(['project.reactivated']);
    expect(activateProject.decide(withProject(), { projectId: 'p1', orgId: 'o1' }, context()).events).toEqual([]);
  });
});

describe('removeProject', () => {
  const app = (projectId: string): Application => ({
    orgId: 'o1',
    projectId,
    name: 'Web',
    clientId: `a1@${projectId}`,
    config: { type: 'api', api: { authMethod: 'basic' } },
    secretDigest: 'd',
    keys: [],
  });

  it('removes the project and its apps, releasing every claim; foreign apps are left alone', () => {
    const loaded = given([
      org,
      { kind: projectKind, record: record('p1', portal(), owner) },
      { kind: applicationKind, record: record('a1', app('p1'), owner) },
      { kind: applicationKind, record: record('a2', app('p2'), owner) },
    ]);
    const decision = removeProject.decide(loaded, { projectId: 'p1', orgId: 'o1', appIds: ['a1', 'a2', 'a1'] }, context());
    expect(decision.events.map((e) => `${e.aggregateId}:${e.type}`)).toEqual(['a1:project.application.removed', 'p1:project.removed']);
    expect(decision.releases).toEqual([
      { scope: 'project.name', value: 'o1:portal' },
      { scope: 'app.client_id', value: 'a1@p1' },
      { scope: 'app.name', value: 'p1:web' },
    ]);
  });
});

describe('project roles', () => {
  it('adds a role; the key must be free and well-formed', () => {
    const decision = addProjectRole.decide(withProject(), { projectId: 'p1', orgId: 'o1', key: 'viewer', displayName: ' Viewer ', group: '' }, context());
    expect(decision.events).toEqual([
      { aggregateType: 'project', aggregateId: 'p1', type: 'project.role.added', owner, creator: 'u-admin', payload: { key: 'viewer', displayName: 'Viewer', group: '' } },
    ]);
    const row = applyDecision(projectKind, 'p1', record('p1', portal(), owner, 3), decision);
    expect(row?.state.roles).toEqual([{ key: 'viewer', displayName: 'Viewer', group: '', createdAt: NOW, changedAt: NOW, sequence: 10 }]);
    const taken = withProject(portal({ roles: [role] }));
    expect(codeOf(() => addProjectRole.decide(taken, { projectId: 'p1', orgId: 'o1', key: 'admin', displayName: 'A', group: '' }, context()))).toBe('project.role_key_taken');
    expect(codeOf(() => addProjectRole.decide(withProject(), { projectId: 'p1', orgId: 'o1', key: 'bad key', displayName: 'A', group: '' }, context()))).toBe('request.invalid');
  });

  it('changes only what differs and keeps per-role stamps', () => {
    const loaded = withProject(portal({ roles: [role] }));
    expect(changeProjectRole.decide(loaded, { projectId: 'p1', orgId: 'o1', key: 'admin', displayName: 'Admin', group: 'ops' }, context()).events).toEqual([]);
    expect(changeProjectRole.decide(loaded, { projectId: 'p1', orgId: 'o1', key: 'admin' }, context()).reply(noOutcome)).toEqual({
      id: 'admin',
      sequence: 3,
      changeDate: NOW - 50,
      resourceOwner: owner,
    });
    const changed = changeProjectRole.decide(loaded, { projectId: 'p1', orgId: 'o1', key: 'admin', group: 'platform' }, context());
    expect(changed.events.map((e) => e.payload)).toEqual([{ key: 'admin', group: 'platform' }]);
    const row = applyDecision(projectKind, 'p1', record('p1', portal({ roles: [role] }), owner, 3), changed);
    expect(row?.state.roles).toEqual([{ ...role, group: 'platform', changedAt: NOW, sequence: 10 }]);
    expect(codeOf(() => changeProjectRole.decide(loaded, { projectId: 'p1', orgId: 'o1', key: 'nope', group: 'x' }, context()))).toBe('project.role_not_found');
  });

  it('removes a role', () => {
    const loaded = withProject(portal({ roles: [role] }));
    const decision = removeProjectRole.decide(loaded, { projectId: 'p1', orgId: 'o1', key: 'admin' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['project.role.removed']);
    expect(applyDecision(projectKind, 'p1', record('p1', portal({ roles: [role] }), owner, 3), decision)?.state.roles).toEqual([]);
    expect(codeOf(() => removeProjectRole.decide(withProject(), { projectId: 'p1', orgId: 'o1', key: 'admin' }, context()))).toBe('project.role_not_found');
  });
});
