/**
 * PlatformProjects over JSON/HTTP (and one call over gRPC) against a started node: CRUD,
 * activation, roles, search (filters, sorting, paging, limits), organization scoping,
 * permissions and bad input (400 naming the field, nothing written).
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformProjects } from '../../src/gen/platform/resources/project/v3alpha/project_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser, type SeedSetup } from './seed.fixture.js';

const BASE = '/resources/v3alpha/projects';

let node: TestNode;
let call: ReturnType<typeof api>;
let setup: SeedSetup;
let otherOrg: string;

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
  setup = await readSetup(node);
  otherOrg = (await call('POST', '/resources/v3alpha/organizations', { name: 'Projects Other Org' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('projects', () => {
  it('creates, reads, patches (also as a no-op), (de)activates and deletes a project', async () => {
    const created = await call('POST', BASE, { name: 'Portal', projectRoleAssertion: true });
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: setup.orgId });

    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.project).toMatchObject({
      project: { name: 'Portal', projectRoleAssertion: true },
      state: 'EFFECTIVE_STATE_ACTIVE',
      details: { id, sequence: created.body.details.sequence },
    });
    expect(got.body.project.creationDate).toMatch(/^\d{4}-/);

    const patched = await call('PATCH', `${BASE}/${id}`, { name: 'Portal 2', hasProjectCheck: true, projectRoleAssertion: false });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    expect((await call('GET', `${BASE}/${id}`)).body.project.project).toEqual({ name: 'Portal 2', hasProjectCheck: true });
    for (const body of [{ name: 'Portal 2', hasProjectCheck: true }, {}]) {
      const noop = await call('PATCH', `${BASE}/${id}`, body);
      expect(noop.status).toBe(200);
      expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    }

    const deactivated = await call('POST', `${BASE}/${id}/_deactivate`);
    expect(deactivated.status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.project.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect((await call('POST', `${BASE}/${id}/_deactivate`)).body.details.sequence).toBe(deactivated.body.details.sequence);
    expect((await call('POST', `${BASE}/${id}/_activate`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.project.state).toBe('EFFECTIVE_STATE_ACTIVE');

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    const gone = await call('GET', `${BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('project.not_found');
    expect((await call('PATCH', `${BASE}/${id}`, { name: 'x' })).status).toBe(404);
    expect((await call('POST', `${BASE}/${id}/_activate`)).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('POST', BASE, { name: 'Portal 2' })).status).toBe(201); // the name is free again
  });

  it('keeps names unique per organization, regardless of case', async () => {
    expect((await call('POST', BASE, { name: 'Unique Project' })).status).toBe(201);
    const dup = await call('POST', BASE, { name: 'unique project' });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('project.name_taken');
    const elsewhere = await call('POST', `${BASE}?ctx.orgId=${otherOrg}`, { name: 'Unique Project' });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.details.resourceOwner.id).toBe(otherOrg);
  });

  it('searches with each filter, sorts by each column both ways, pages, and narrows to the ctx org', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['Find C', 'Find A', 'Find B']) ids[name] = (await call('POST', BASE, { name })).body.details.id;
    ids['Find Z'] = (await call('POST', `${BASE}?ctx.orgId=${otherOrg}`, { name: 'Find Z' })).body.details.id;
    await call('PATCH', `${BASE}/${ids['Find C']}`, { projectRoleCheck: true }); // newest change
    await call('POST', `${BASE}/${ids['Find B']}/_deactivate`);
    const filter = [{ name: { name: 'find ', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }];
    const names = async (path: string, filters: unknown[] = filter) => {
      const response = await call('POST', `${BASE}/_search${path}`, filters);
      expect(response.status).toBe(200);
      return response.body.result?.map((p: any) => p.project.name) ?? [];
    };

    expect(await names('?sortingColumn=PROJECT_FIELD_NAME_NAME&query.asc=true')).toEqual(['Find A', 'Find B', 'Find C', 'Find Z']);
    expect(await names('?sortingColumn=PROJECT_FIELD_NAME_NAME')).toEqual(['Find Z', 'Find C', 'Find B', 'Find A']);
    expect(await names('')).toEqual(['Find Z', 'Find B', 'Find A', 'Find C']); // creation date, descending
    expect(await names('?sortingColumn=PROJECT_FIELD_NAME_CREATION_DATE&query.asc=true')).toEqual(['Find C', 'Find A', 'Find B', 'Find Z']);
    expect(await names('?sortingColumn=PROJECT_FIELD_NAME_ID&query.asc=true')).toEqual(['Find C', 'Find A', 'Find B', 'Find Z']);
    expect(await names('?sortingColumn=PROJECT_FIELD_NAME_ID')).toEqual(['Find Z', 'Find B', 'Find A', 'Find C']);
    expect((await names('?sortingColumn=PROJECT_FIELD_NAME_CHANGE_DATE')).slice(0, 1)).toEqual(['Find B']);
    expect((await names('?sortingColumn=PROJECT_FIELD_NAME_CHANGE_DATE&query.asc=true')).slice(-2)).toEqual(['Find C', 'Find B']);

    const page = await call('POST', `${BASE}/_search?sortingColumn=PROJECT_FIELD_NAME_NAME&query.asc=true&query.offset=1&query.limit=2`, filter);
    expect(page.body.result.map((p: any) => p.project.name)).toEqual(['Find B', 'Find C']);
    expect(page.body.details).toMatchObject({ appliedLimit: 2, totalResult: '4' });
    expect(page.body.details.endOfList).toBeUndefined();
    expect(page.body.details.processedSequence).toMatch(/^\d+$/);

    expect(await names('?query.asc=true', [...filter, { inIds: { ids: [ids['Find A'], ids['Find Z']] } }])).toEqual(['Find A', 'Find Z']);
    expect(await names('', [...filter, { state: { state: 'EFFECTIVE_STATE_INACTIVE' } }])).toEqual(['Find B']);
    expect(await names('', [...filter, { orgId: { id: otherOrg } }])).toEqual(['Find Z']);
    expect(await names(`?ctx.orgId=${otherOrg}`)).toEqual(['Find Z']);
    expect(await names('', [{ name: { name: 'Find A', method: 'TEXT_FILTER_METHOD_EQUALS' } }])).toEqual(['Find A']);

    const tooMany = await call('POST', `${BASE}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toContain('query.limit');
  });

  it('manages roles: add, duplicate, patch (also a no-op), search, delete', async () => {
    const projectId = (await call('POST', BASE, { name: 'Role Project' })).body.details.id;
    const roles = `${BASE}/${projectId}/roles`;
    const added = await call('POST', roles, { key: 'admin', displayName: 'Administrator', group: 'ops' });
    expect(added.status).toBe(201);
    expect(added.body.details).toMatchObject({ id: 'admin', resourceOwner: { id: setup.orgId } });
    expect((await call('POST', roles, { key: 'user.read:all', displayName: 'Reader', group: 'users' })).status).toBe(201);
    expect((await call('POST', roles, { key: 'auditor', displayName: 'Auditor' })).status).toBe(201);
    const dup = await call('POST', roles, { key: 'admin', displayName: 'Again' });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('project.role_key_taken');

    const patched = await call('PATCH', `${roles}/admin`, { displayName: 'Admin' });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(added.body.details.sequence));
    expect((await call('PATCH', `${roles}/admin`, { displayName: 'Admin', group: 'ops' })).body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${roles}/nope`, { displayName: 'x' })).body.details[0].id).toBe('project.role_not_found');

    const keys = async (path: string, filters: unknown[] = []) =>
      (await call('POST', `${roles}/_search${path}`, filters)).body.result?.map((r: any) => r.role.key) ?? [];
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_KEY&query.asc=true')).toEqual(['admin', 'auditor', 'user.read:all']);
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_KEY')).toEqual(['user.read:all', 'auditor', 'admin']);
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_DISPLAY_NAME&query.asc=true')).toEqual(['admin', 'auditor', 'user.read:all']);
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_GROUP&query.asc=true')).toEqual(['auditor', 'admin', 'user.read:all']);
    expect(await keys('?query.asc=true&query.limit=1&query.offset=1')).toEqual(['user.read:all']);
    expect(await keys('', [{ key: { text: 'user.', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }])).toEqual(['user.read:all']);
    expect(await keys('', [{ displayName: { text: 'ADMIN', method: 'TEXT_FILTER_METHOD_EQUALS_IGNORE_CASE' } }])).toEqual(['admin']);
    expect(await keys('', [{ group: { text: 'ops' } }])).toEqual(['admin']);
    const one = (await call('POST', `${roles}/_search`, [{ key: { text: 'admin' } }])).body.result[0];
    expect(one).toMatchObject({ role: { key: 'admin', displayName: 'Admin', group: 'ops' }, details: { id: 'admin', sequence: patched.body.details.sequence } });
    expect((await call('GET', `${BASE}/${projectId}`)).body.project.roleCount).toBe(3);

    expect((await call('DELETE', `${roles}/admin`)).status).toBe(200);
    const again = await call('DELETE', `${roles}/admin`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('project.role_not_found');
    expect((await call('POST', `${BASE}/4242/roles`, { key: 'x', displayName: 'x' })).status).toBe(404);
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const count = async () => (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const before = await count();
    const projectId = (await call('POST', BASE, { name: 'Bad Input Project' })).body.details.id;
    const cases: [string, string, string, unknown, string][] = [
      ['malformed JSON', 'POST', BASE, '{"name":', 'project'],
      ['wrong type', 'POST', BASE, { name: 123 }, 'project.name'],
      ['missing name', 'POST', BASE, {}, 'project.name'],
      ['blank name', 'POST', BASE, { name: '   ' }, 'project.name'],
      ['over-long name', 'POST', BASE, { name: 'x'.repeat(201) }, 'project.name'],
      ['non-boolean setting', 'POST', BASE, { name: 'ok', projectRoleCheck: 'yes' }, 'project.projectRoleCheck'],
      ['patch blank name', 'PATCH', `${BASE}/${projectId}`, { name: '' }, 'project.name'],
      ['unknown enum in filter', 'POST', `${BASE}/_search`, [{ name: { name: 'a', method: 'TEXT_FILTER_METHOD_NOPE' } }], 'filters[0].name.method'],
      ['over-long filter', 'POST', `${BASE}/_search`, [{ name: { name: 'x'.repeat(201) } }], 'filters[0].name.name'],
      ['unspecified state filter', 'POST', `${BASE}/_search`, [{ state: {} }], 'filters[0].state.state'],
      ['unknown sorting column', 'POST', `${BASE}/_search?sortingColumn=PROJECT_FIELD_NAME_NOPE`, [], 'sortingColumn'],
      ['bad role key', 'POST', `${BASE}/${projectId}/roles`, { key: 'bad key', displayName: 'x' }, 'role.key'],
      ['missing role display name', 'POST', `${BASE}/${projectId}/roles`, { key: 'k' }, 'role.displayName'],
      ['over-long role group', 'POST', `${BASE}/${projectId}/roles`, { key: 'k', displayName: 'x', group: 'g'.repeat(201) }, 'role.group'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await call(method, path, body);
      expect(response.status, label).toBe(400);
      expect(response.body.code, label).toBe(3);
      expect(violatedFields(response.body), label).toContain(field);
    }
    expect(await count()).toBe(String(BigInt(before) + 1n));
    expect((await call('POST', `${BASE}/${projectId}/roles/_search`, [])).body.result).toBeUndefined();
  });

  it('checks permissions in the project organization and hides other organizations behind ctx', async () => {
    const mine = (await call('POST', BASE, { name: 'Guarded' })).body.details.id;
    const foreign = (await call('POST', `${BASE}?ctx.orgId=${otherOrg}`, { name: 'Foreign' })).body.details.id;
    const viewer = await seedMachineUser(node, {
      username: 'project-viewer',
      memberships: [{ contextType: 'org', contextId: setup.orgId, roles: ['ORG_OWNER_VIEWER'] }],
    });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/${mine}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', `${BASE}/${mine}`, { name: 'Nope' }],
      ['POST', `${BASE}/${mine}/_deactivate`, undefined],
      ['DELETE', `${BASE}/${mine}`, undefined],
      ['POST', BASE, { name: 'Viewer Made' }],
      ['POST', `${BASE}/${mine}/roles`, { key: 'k', displayName: 'k' }],
    ] as const) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }
    expect((await asViewer('GET', `${BASE}/${foreign}`)).status).toBe(403);
    const visible = await asViewer('POST', `${BASE}/_search?query.limit=1000`, []);
    expect(visible.body.result.every((p: any) => p.details.resourceOwner.id === setup.orgId)).toBe(true);
    expect(visible.body.result.map((p: any) => p.details.id)).toContain(mine);

    const hidden = await call('GET', `${BASE}/${foreign}?ctx.orgId=${setup.orgId}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.details[0].id).toBe('project.not_found');
    expect((await call('GET', `${BASE}/${foreign}?ctx.orgId=${otherOrg}`)).status).toBe(200);
  });

  it('lets a project membership (PROJECT_OWNER) manage that project only', async () => {
    const owned = (await call('POST', BASE, { name: 'Owned Project' })).body.details.id;
    const other = (await call('POST', BASE, { name: 'Not Owned Project' })).body.details.id;
    const member = await seedMachineUser(node, { username: 'project-owner' });
    const membership = await call('POST', '/resources/v3alpha/memberships', { projectId: owned, userId: member.userId, roles: ['PROJECT_OWNER'] });
    expect(membership.status).toBe(201);
    const asMember = api(node, member.token);
    expect((await asMember('PATCH', `${BASE}/${owned}`, { projectRoleCheck: true })).status).toBe(200);
    expect((await asMember('POST', `${BASE}/${owned}/roles`, { key: 'editor', displayName: 'Editor' })).status).toBe(201);
    const app = await asMember('POST', '/resources/v3alpha/apps', { projectId: owned, name: 'Member App', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(app.status).toBe(201);
    expect((await asMember('POST', '/resources/v3alpha/apps/_search', [])).body.result.map((a: any) => a.details.id)).toEqual([app.body.details.id]);
    expect((await asMember('POST', `${BASE}/_search`, [])).body.result.map((p: any) => p.details.id)).toEqual([owned]);
    expect((await asMember('GET', `${BASE}/${other}`)).status).toBe(403);
    expect((await asMember('POST', '/resources/v3alpha/apps', { projectId: other, name: 'x', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } })).status).toBe(403);
    expect((await asMember('POST', BASE, { name: 'Member Made' })).status).toBe(403);
  });

  it('answers over gRPC like over JSON', async () => {
    const id = (await call('POST', BASE, { name: 'Over gRPC' })).body.details.id;
    const client = createClient(PlatformProjects, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const viaGrpc = await client.getProject({ id }, auth);
    expect(viaGrpc.project?.project?.name).toBe('Over gRPC');
    expect(viaGrpc.project?.details?.resourceOwner?.id).toBe(setup.orgId);
    const created = await client.createProjectRole({ projectId: id, role: { key: 'grpc', displayName: 'gRPC' } }, auth);
    expect(created.details?.id).toBe('grpc');
  });
});
