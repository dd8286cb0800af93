/**
 * PlatformGrants over JSON/HTTP (and one call over gRPC) against a started node: project
 * grants — CRUD, activation, search (filters, sorting, paging, limits), the rules and bad
 * input — and, for both resources, permissions and removal cascades. User grants:
 * user-grants.test.ts.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformGrants } from '../../src/gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { grantBuilders, PG, startGrantsWorld, stopGrantsWorld, UG, type GrantsWorld } from './grants.fixture.js';
import { api, type TestNode, violatedFields } from './harness.js';
import { seedMachineUser } from './seed.fixture.js';

let world: GrantsWorld | undefined;
let node: TestNode;
let call: GrantsWorld['call'];
let setup: GrantsWorld['setup'];
let otherOrg: string;
let thirdOrg: string;

beforeAll(async () => {
  world = await startGrantsWorld('Grants');
  ({ node, call, setup, otherOrg, thirdOrg } = world);
});
afterAll(() => stopGrantsWorld(world));

const { created, project, machine } = grantBuilders(() => world as GrantsWorld);

describe('project grants', () => {
  it('creates, reads, patches (also as a no-op), (de)activates and deletes a project grant', async () => {
    const projectId = await project('PG Crud', ['admin', 'reader', 'writer']);
    const response = await call('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['reader', 'admin', 'reader'] });
    expect(response.status).toBe(201);
    const id: string = response.body.details.id;
    expect(response.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: setup.orgId });

    const got = await call('GET', `${PG}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.projectGrant).toMatchObject({
      projectGrant: { projectId, grantedOrgId: otherOrg, roleKeys: ['admin', 'reader'] },
      state: 'EFFECTIVE_STATE_ACTIVE',
      details: { id, sequence: response.body.details.sequence },
    });
    expect(got.body.projectGrant.creationDate).toMatch(/^\d{4}-/);

    const patched = await call('PATCH', `${PG}/${id}`, { roleKeys: { keys: ['writer'] } });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(response.body.details.sequence));
    expect((await call('GET', `${PG}/${id}`)).body.projectGrant.projectGrant.roleKeys).toEqual(['writer']);
    for (const body of [{ roleKeys: { keys: ['writer'] } }, {}]) {
      const noop = await call('PATCH', `${PG}/${id}`, body);
      expect(noop.status).toBe(200);
      expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    }
    const badPatch = await call('PATCH', `${PG}/${id}`, { roleKeys: { keys: ['nope'] } });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.details[0].id).toBe('project_grant.role_not_found');
    expect(violatedFields(badPatch.body)).toContain('projectGrant.roleKeys.keys');

    const deactivated = await call('POST', `${PG}/${id}/_deactivate`);
    expect(deactivated.status).toBe(200);
    expect((await call('GET', `${PG}/${id}`)).body.projectGrant.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect((await call('POST', `${PG}/${id}/_deactivate`)).body.details.sequence).toBe(deactivated.body.details.sequence);
    expect((await call('POST', `${PG}/${id}/_activate`)).status).toBe(200);
    expect((await call('GET', `${PG}/${id}`)).body.projectGrant.state).toBe('EFFECTIVE_STATE_ACTIVE');

    // a removed project role disappears from the grant when read
    expect((await call('DELETE', `/resources/v3alpha/projects/${projectId}/roles/writer`)).status).toBe(200);
    expect((await call('GET', `${PG}/${id}`)).body.projectGrant.projectGrant.roleKeys ?? []).toEqual([]);

    expect((await call('DELETE', `${PG}/${id}`)).status).toBe(200);
    const gone = await call('GET', `${PG}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('project_grant.not_found');
    expect((await call('PATCH', `${PG}/${id}`, {})).status).toBe(404);
    expect((await call('POST', `${PG}/${id}/_activate`)).status).toBe(404);
    expect((await call('DELETE', `${PG}/${id}`)).status).toBe(404);
    expect((await call('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: [] })).status).toBe(201); // free again
  });

  it('rejects unknown roles, the own organization and duplicates', async () => {
    const projectId = await project('PG Rules', ['admin']);
    const unknownRole = await call('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['admin', 'ghost'] });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body.details[0].id).toBe('project_grant.role_not_found');
    expect(violatedFields(unknownRole.body)).toEqual(['projectGrant.roleKeys']);
    const own = await call('POST', PG, { projectId, grantedOrgId: setup.orgId, roleKeys: [] });
    expect(own.status).toBe(400);
    expect(own.body.details[0].id).toBe('project_grant.own_org');
    expect(violatedFields(own.body)).toEqual(['projectGrant.grantedOrgId']);
    expect((await call('POST', PG, { projectId, grantedOrgId: '4242', roleKeys: [] })).body.details[0].id).toBe('org.not_found');
    expect((await call('POST', PG, { projectId: '4242', grantedOrgId: otherOrg, roleKeys: [] })).body.details[0].id).toBe('project.not_found');
    expect((await call('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['admin'] })).status).toBe(201);
    const dup = await call('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: [] });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('project_grant.exists');
  });

  it('searches with each filter, sorts by each column both ways and pages', async () => {
    const p1 = await project('PG Search 1', ['a', 'b']);
    const p2 = await project('PG Search 2', ['a']);
    const g1 = await created('POST', PG, { projectId: p1, grantedOrgId: otherOrg, roleKeys: ['a'] });
    const g2 = await created('POST', PG, { projectId: p1, grantedOrgId: thirdOrg, roleKeys: ['b'] });
    const g3 = await created('POST', PG, { projectId: p2, grantedOrgId: otherOrg, roleKeys: ['a'] });
    await call('POST', `${PG}/${g2}/_deactivate`); // g2 changed last
    const scope = [{ inIds: { ids: [g1, g2, g3] } }];
    const ids = async (path: string, filters: unknown[] = []) => {
      const response = await call('POST', `${PG}/_search${path}`, [...scope, ...filters]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.result?.map((g: any) => g.details.id) ?? [];
    };
    expect(await ids('')).toEqual([g3, g2, g1]);
    expect(await ids('?query.asc=true')).toEqual([g1, g2, g3]);
    expect(await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_CREATION_DATE&query.asc=true')).toEqual([g1, g2, g3]);
    expect(await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_ID')).toEqual([g3, g2, g1]);
    expect(await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_ID&query.asc=true')).toEqual([g1, g2, g3]);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_CHANGE_DATE'))[0]).toBe(g2);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_CHANGE_DATE&query.asc=true'))[2]).toBe(g2);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_PROJECT_ID&query.asc=true'))[2]).toBe(g3);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_PROJECT_ID'))[0]).toBe(g3);
    const otherFirst = BigInt(otherOrg) < BigInt(thirdOrg);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_GRANTED_ORG_ID&query.asc=true'))[otherFirst ? 2 : 0]).toBe(g2);
    expect((await ids('?sortingColumn=PROJECT_GRANT_FIELD_NAME_GRANTED_ORG_ID'))[otherFirst ? 0 : 2]).toBe(g2);

    expect(await ids('?query.asc=true', [{ projectId: { id: p1 } }])).toEqual([g1, g2]);
    expect(await ids('?query.asc=true', [{ grantedOrgId: { id: otherOrg } }])).toEqual([g1, g3]);
    expect(await ids('?query.asc=true', [{ roleKey: { key: 'a' } }])).toEqual([g1, g3]);
    expect(await ids('', [{ state: { state: 'EFFECTIVE_STATE_INACTIVE' } }])).toEqual([g2]);

    const page = await call('POST', `${PG}/_search?query.asc=true&query.offset=1&query.limit=1`, scope);
    expect(page.body.result.map((g: any) => g.details.id)).toEqual([g2]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    const tooMany = await call('POST', `${PG}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toContain('query.limit');
  });

  it('rejects bad input with 400 naming the field', async () => {
    const projectId = await project('PG Bad Input', ['admin']);
    const cases: [string, string, string, unknown, string][] = [
      ['missing project id', 'POST', PG, { grantedOrgId: otherOrg }, 'projectGrant.projectId'],
      ['missing granted org', 'POST', PG, { projectId }, 'projectGrant.grantedOrgId'],
      ['wrong type', 'POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: 'admin' }, 'projectGrant.roleKeys'],
      ['bad role key', 'POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['bad key'] }, 'projectGrant.roleKeys[0]'],
      ['over-long id', 'POST', PG, { projectId: 'x'.repeat(201), grantedOrgId: otherOrg }, 'projectGrant.projectId'],
      ['unspecified state filter', 'POST', `${PG}/_search`, [{ state: {} }], 'filters[0].state.state'],
      ['empty project filter', 'POST', `${PG}/_search`, [{ projectId: {} }], 'filters[0].projectId.id'],
      ['unknown sorting column', 'POST', `${PG}/_search?sortingColumn=PROJECT_GRANT_FIELD_NAME_NOPE`, [], 'sortingColumn'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await call(method, path, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
  });
});

describe('grant permissions and transports', () => {
  it('answers 403 without the permission', async () => {
    const projectId = await project('Perm Project', ['admin']);
    const pg = await created('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['admin'] });
    const ug = await created('POST', UG, { userId: await machine('perm-target'), projectId, roleKeys: ['admin'] });
    const outsider = await seedMachineUser(node, {
      username: 'grant-outsider',
      memberships: [{ contextType: 'org', contextId: otherOrg, roles: ['ORG_OWNER_VIEWER'] }],
    });
    const asOutsider = api(node, outsider.token);
    for (const [method, path, body] of [
      ['GET', `${PG}/${pg}`, undefined],
      ['PATCH', `${PG}/${pg}`, { roleKeys: { keys: [] } }],
      ['DELETE', `${PG}/${pg}`, undefined],
      ['POST', PG, { projectId, grantedOrgId: thirdOrg, roleKeys: [] }],
      ['GET', `${UG}/${ug}`, undefined],
      ['POST', `${UG}/${ug}/_deactivate`, undefined],
      ['POST', UG, { userId: outsider.userId, projectId, roleKeys: [] }],
    ] as const) {
      const denied = await asOutsider(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }
    const visible = (await asOutsider('POST', `${UG}/_search`, [])).body.result ?? [];
    expect(visible.map((g: any) => g.details.id)).not.toContain(ug); // only grants of the org it may read
    expect(visible.every((g: any) => g.details.resourceOwner.id === otherOrg)).toBe(true);
    expect((await asOutsider('POST', `${PG}/_search`, [])).body.result ?? []).toEqual([]);
  });

  it('lets a project membership (PROJECT_OWNER) manage grants of that project only', async () => {
    const owned = await project('Member Grant Project', ['admin']);
    const other = await project('Not Member Grant Project', ['admin']);
    const member = await seedMachineUser(node, { username: 'grant-project-owner' });
    expect((await call('POST', '/resources/v3alpha/memberships', { projectId: owned, userId: member.userId, roles: ['PROJECT_OWNER'] })).status).toBe(201);
    const asMember = api(node, member.token);
    const made = await asMember('POST', PG, { projectId: owned, grantedOrgId: otherOrg, roleKeys: ['admin'] });
    expect(made.status).toBe(201);
    expect((await asMember('POST', PG, { projectId: other, grantedOrgId: otherOrg, roleKeys: [] })).status).toBe(403);
    expect((await asMember('POST', `${PG}/_search`, [])).body.result.map((g: any) => g.details.id)).toEqual([made.body.details.id]);
  });

  it('treats grants of a removed user or project as gone', async () => {
    const projectId = await project('Gone Project', ['admin']);
    const userId = await machine('gone-user');
    const byUser = await created('POST', UG, { userId, projectId, roleKeys: ['admin'] });
    expect((await call('DELETE', `/resources/v3alpha/users/${userId}`)).status).toBe(200);
    expect((await call('GET', `${UG}/${byUser}`)).status).toBe(404);
    const pg = await created('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: [] });
    const byProject = await created('POST', UG, { userId: await machine('gone-user-2'), projectId, roleKeys: [] });
    expect((await call('DELETE', `/resources/v3alpha/projects/${projectId}`)).status).toBe(200);
    expect((await call('GET', `${PG}/${pg}`)).status).toBe(404);
    expect((await call('GET', `${UG}/${byProject}`)).status).toBe(404);
    const search = await call('POST', `${UG}/_search`, [{ inIds: { ids: [byUser, byProject] } }]);
    expect(search.body.result ?? []).toEqual([]);
  });

  it('answers over gRPC like over JSON', async () => {
    const projectId = await project('Grants over gRPC', ['admin']);
    const client = createClient(PlatformGrants, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const made = await client.createProjectGrant({ projectGrant: { projectId, grantedOrgId: otherOrg, roleKeys: ['admin'] } }, auth);
    const got = await client.getProjectGrant({ id: made.details?.id ?? '' }, auth);
    expect(got.projectGrant?.projectGrant?.roleKeys).toEqual(['admin']);
    expect(got.projectGrant?.details?.resourceOwner?.id).toBe(setup.orgId);
  });
});
