/**
 * PlatformMemberships over JSON/HTTP against a started node: CRUD with derived ids, search,
 * ListAvailableRoles, uniqueness, the last instance owner, bad input, gRPC, and permissions
 * granted through memberships created by the API (org and project contexts, tombstones).
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MembershipContextType, PlatformMemberships } from '../../src/gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, seedMachineUser, type SeedSetup } from './seed.fixture.js';

const BASE = '/resources/v3alpha/memberships';
const ORGS = '/resources/v3alpha/organizations';

let node: TestNode;
let call: ReturnType<typeof api>;
let setup: SeedSetup;
let adminId: string;

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
  setup = await readSetup(node);
  const owners = await call('POST', `${BASE}/_search`, [{ role: { role: 'IAM_OWNER' } }]);
  adminId = owners.body.result[0].userId;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const user = async (username: string) => (await seedMachineUser(node, { username })).userId;
const newOrg = async (name: string): Promise<string> => (await call('POST', ORGS, { name })).body.details.id;

describe('memberships', () => {
  it('creates, reads (id raw or percent-encoded), patches (also as a no-op), searches and deletes', async () => {
    const userId = await user('crud-member');
    const created = await call('POST', BASE, { orgId: setup.orgId, userId, roles: ['ORG_OWNER_VIEWER'] });
    expect(created.status).toBe(201);
    const id = `org:${setup.orgId}:${userId}`;
    expect(created.body.details).toMatchObject({ id, resourceOwner: { type: 'OWNER_TYPE_ORG', id: setup.orgId } });

    for (const path of [`${BASE}/${id}`, `${BASE}/${encodeURIComponent(id)}`]) {
      const got = await call('GET', path);
      expect(got.status).toBe(200);
      expect(got.body.membership).toMatchObject({
        contextType: 'MEMBERSHIP_CONTEXT_TYPE_ORG',
        contextId: setup.orgId,
        userId,
        roles: ['ORG_OWNER_VIEWER'],
        details: { id, sequence: created.body.details.sequence },
      });
    }

    const patched = await call('PATCH', `${BASE}/${id}`, { roles: ['ORG_OWNER', 'ORG_USER_MANAGER'] });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    for (const body of [{ roles: ['ORG_USER_MANAGER', 'ORG_OWNER'] }, { roles: [] }, {}]) {
      const noop = await call('PATCH', `${BASE}/${id}`, body);
      expect(noop.status).toBe(200);
      expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    }
    expect((await call('GET', `${BASE}/${id}`)).body.membership.roles).toEqual(['ORG_OWNER', 'ORG_USER_MANAGER']);

    const found = await call('POST', `${BASE}/_search`, [{ userId: { id: userId } }]);
    expect(found.body.result.map((m: any) => m.details.id)).toEqual([id]);

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('PATCH', `${BASE}/${id}`, { roles: ['ORG_OWNER'] })).body.details[0].id).toBe('membership.not_found');
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('GET', `${BASE}/not-an-id`)).status).toBe(404);
    expect((await call('POST', BASE, { orgId: setup.orgId, userId, roles: ['ORG_OWNER'] })).status).toBe(201); // free again
  });

  it('is unique per (context, user): 409', async () => {
    const userId = await user('dup-member');
    expect((await call('POST', BASE, { instance: true, userId, roles: ['IAM_OWNER_VIEWER'] })).status).toBe(201);
    const dup = await call('POST', BASE, { instance: true, userId, roles: ['IAM_USER_MANAGER'] });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('membership.exists');
    expect((await call('POST', BASE, { orgId: setup.orgId, userId, roles: ['ORG_OWNER'] })).status).toBe(201); // another context
  });

  it('keeps the last IAM_OWNER of the instance', async () => {
    const adminMembership = `instance:${setup.instanceId}:${adminId}`;
    const remove = await call('DELETE', `${BASE}/${adminMembership}`);
    expect(remove.status).toBe(400);
    expect(remove.body.details[0].id).toBe('membership.last_owner');
    expect((await call('PATCH', `${BASE}/${adminMembership}`, { roles: ['IAM_OWNER_VIEWER'] })).body.details[0].id).toBe('membership.last_owner');
    expect((await call('PATCH', `${BASE}/${adminMembership}`, { roles: ['IAM_OWNER', 'IAM_OWNER_VIEWER'] })).status).toBe(200);

    const second = await user('second-owner');
    expect((await call('POST', BASE, { instance: true, userId: second, roles: ['IAM_OWNER'] })).status).toBe(201);
    const secondId = `instance:${setup.instanceId}:${second}`;
    expect((await call('PATCH', `${BASE}/${secondId}`, { roles: ['IAM_OWNER_VIEWER'] })).status).toBe(200); // the admin remains
    expect((await call('DELETE', `${BASE}/${secondId}`)).status).toBe(200);
    expect((await call('DELETE', `${BASE}/${adminMembership}`)).status).toBe(400);
  });

  it('lists the available roles per context with their permissions', async () => {
    const org = await call('GET', `${BASE}/_available_roles?contextType=MEMBERSHIP_CONTEXT_TYPE_ORG`);
    expect(org.status).toBe(200);
    const names = org.body.roles.map((r: any) => r.name);
    expect(names).toContain('ORG_OWNER');
    expect(names).not.toContain('IAM_OWNER');
    const orgOwner = org.body.roles.find((r: any) => r.name === 'ORG_OWNER');
    expect(orgOwner.contextType).toBe('MEMBERSHIP_CONTEXT_TYPE_ORG');
    expect(orgOwner.permissions).toContain('org.write');
    expect(orgOwner.permissions).toEqual([...orgOwner.permissions].sort());
    expect(orgOwner.permissions.some((p: string) => p.startsWith('action.'))).toBe(false);
    const instance = (await call('GET', `${BASE}/_available_roles?context_type=MEMBERSHIP_CONTEXT_TYPE_INSTANCE`)).body.roles;
    expect(instance.find((r: any) => r.name === 'IAM_OWNER').permissions).toEqual(expect.arrayContaining(['action.target.write', 'idp.read', 'org.write', 'user.write']));
    expect(instance.every((r: any) => r.contextType === 'MEMBERSHIP_CONTEXT_TYPE_INSTANCE')).toBe(true);
    expect((await call('GET', `${BASE}/_available_roles?contextType=MEMBERSHIP_CONTEXT_TYPE_PROJECT`)).body.roles.map((r: any) => r.name)).toEqual([
      'PROJECT_OWNER',
      'PROJECT_OWNER_VIEWER',
    ]);
    const all = (await call('GET', `${BASE}/_available_roles`)).body.roles;
    expect(new Set(all.map((r: any) => r.contextType)).size).toBe(4);
    expect((await call('GET', `${BASE}/_available_roles?contextType=MEMBERSHIP_CONTEXT_TYPE_NOPE`)).status).toBe(400);
  });

  it('filters, sorts by each column both ways and pages', async () => {
    const orgId = await newOrg('Member Sort Org');
    const users = [await user('sort-1'), await user('sort-2'), await user('sort-3')];
    for (const u of users) expect((await call('POST', BASE, { orgId, userId: u, roles: ['ORG_OWNER_VIEWER'] })).status).toBe(201);
    expect((await call('POST', BASE, { instance: true, userId: users[0], roles: ['IAM_OWNER_VIEWER'] })).status).toBe(201);
    const search = async (params: string, filters: unknown[] = [{ contextId: { id: orgId } }]) => (await call('POST', `${BASE}/_search?${params}`, filters)).body;
    const userIds = (body: any) => body.result.map((m: any) => m.userId);
    expect(userIds(await search('query.asc=true'))).toEqual(users);
    expect(userIds(await search(''))).toEqual([...users].reverse());
    for (const column of ['ID', 'USER_ID', 'CREATION_DATE', 'CHANGE_DATE']) {
      expect(userIds(await search(`sortingColumn=MEMBERSHIP_FIELD_NAME_${column}&query.asc=true`)), column).toEqual(users);
      expect(userIds(await search(`sortingColumn=MEMBERSHIP_FIELD_NAME_${column}`)), column).toEqual([...users].reverse());
    }
    const byType = await search('sortingColumn=MEMBERSHIP_FIELD_NAME_CONTEXT_TYPE&query.asc=true', [{ userId: { id: users[0] } }]);
    expect(byType.result.map((m: any) => m.contextType)).toEqual(['MEMBERSHIP_CONTEXT_TYPE_INSTANCE', 'MEMBERSHIP_CONTEXT_TYPE_ORG']);
    const byContext = await search('sortingColumn=MEMBERSHIP_FIELD_NAME_CONTEXT_ID', [{ userId: { id: users[0] } }]);
    expect(byContext.result.map((m: any) => m.contextId)).toEqual([orgId, setup.instanceId].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
    const page = await search('sortingColumn=MEMBERSHIP_FIELD_NAME_USER_ID&query.asc=true&query.offset=1&query.limit=1');
    expect(userIds(page)).toEqual([users[1]]);
    expect(page.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(userIds(await search('', [{ contextType: { contextType: 'MEMBERSHIP_CONTEXT_TYPE_INSTANCE' } }, { userId: { id: users[0] } }]))).toEqual([users[0]]);
    expect(userIds(await search('', [{ role: { role: 'ORG_OWNER_VIEWER' } }, { contextId: { id: orgId } }]))).toHaveLength(3);
    expect(userIds(await search('', [{ inIds: { ids: [`org:${orgId}:${users[2]}`] } }]))).toEqual([users[2]]);
    expect(userIds(await search(`ctx.orgId=${orgId}`, [{ userId: { id: users[0] } }]))).toEqual([users[0]]); // only that org's
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const before = (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const userId = await user('bad-input');
    const cases: [string, string, unknown, string][] = [
      ['no context', BASE, { userId, roles: ['ORG_OWNER'] }, 'membership.context'],
      ['instance false', BASE, { instance: false, userId, roles: ['IAM_OWNER'] }, 'membership.instance'],
      ['system', BASE, { system: true, userId, roles: ['SYSTEM_OWNER'] }, 'membership.system'],
      ['missing user', BASE, { orgId: setup.orgId, roles: ['ORG_OWNER'] }, 'membership.userId'],
      ['no roles', BASE, { orgId: setup.orgId, userId, roles: [] }, 'membership.roles'],
      ['duplicate role', BASE, { orgId: setup.orgId, userId, roles: ['ORG_OWNER', 'ORG_OWNER'] }, 'membership.roles[1]'],
      ['wrong type', BASE, { orgId: setup.orgId, userId, roles: 'ORG_OWNER' }, 'membership.roles'],
      ['role of another context', BASE, { orgId: setup.orgId, userId, roles: ['ORG_OWNER', 'IAM_OWNER'] }, 'roles[1]'],
      ['unknown role', BASE, { instance: true, userId, roles: ['GOD'] }, 'roles[0]'],
      ['over-long org id', BASE, { orgId: 'x'.repeat(201), userId, roles: ['ORG_OWNER'] }, 'membership.orgId'],
      ['unknown context type filter', `${BASE}/_search`, [{ contextType: { contextType: 'MEMBERSHIP_CONTEXT_TYPE_UNSPECIFIED' } }], 'filters[0].contextType.contextType'],
      ['over-long role filter', `${BASE}/_search`, [{ role: { role: 'x'.repeat(201) } }], 'filters[0].role.role'],
      ['limit above 1000', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['unknown sorting column', `${BASE}/_search?sortingColumn=MEMBERSHIP_FIELD_NAME_NOPE`, [], 'sortingColumn'],
    ];
    for (const [label, path, body, field] of cases) {
      const response = await call('POST', path, body);
      expect(response.status, label).toBe(400);
      const violations = response.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      expect(violations?.fieldViolations?.map((v: any) => v.field), label).toContain(field);
    }
    expect((await call('POST', BASE, { orgId: '4242', userId, roles: ['ORG_OWNER'] })).body.details[0].id).toBe('org.not_found');
    expect((await call('POST', BASE, { projectId: '4242', userId, roles: ['PROJECT_OWNER'] })).body.details[0].id).toBe('project.not_found');
    expect((await call('POST', BASE, { instance: true, userId: '4242', roles: ['IAM_OWNER'] })).body.details[0].id).toBe('user.not_found');
    expect((await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult).toBe(before);
  });

  it('answers over gRPC like over JSON', async () => {
    const client = createClient(PlatformMemberships, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const roles = await client.listAvailableRoles({ contextType: MembershipContextType.ORG }, auth);
    expect(roles.roles.map((r) => r.name)).toContain('ORG_OWNER');
    const admin = await client.getMembership({ id: `instance:${setup.instanceId}:${adminId}` }, auth);
    expect(admin.membership?.roles).toContain('IAM_OWNER');
  });

  it('grants through the API: an ORG_OWNER reads its organization, not another; removing it revokes', async () => {
    const other = await newOrg('Not Granted Org');
    const grantee = await seedMachineUser(node, { username: 'grantee' });
    const asGrantee = api(node, grantee.token);
    expect((await asGrantee('GET', `${ORGS}/${setup.orgId}`)).status).toBe(403);
    expect((await asGrantee('POST', BASE, { orgId: setup.orgId, userId: grantee.userId, roles: ['ORG_OWNER'] })).status).toBe(403);
    expect((await asGrantee('POST', `${BASE}/_search`, [])).body.result ?? []).toEqual([]);
    expect((await asGrantee('GET', `${BASE}/_available_roles`)).status).toBe(200);

    const id = (await call('POST', BASE, { orgId: setup.orgId, userId: grantee.userId, roles: ['ORG_OWNER'] })).body.details.id;
    expect((await asGrantee('GET', `${ORGS}/${setup.orgId}`)).status).toBe(200);
    expect((await asGrantee('GET', `${ORGS}/${other}`)).status).toBe(403);
    // it manages memberships of its organization, but not of the instance or another org
    const helper = await user('grantee-helper');
    expect((await asGrantee('POST', BASE, { orgId: setup.orgId, userId: helper, roles: ['ORG_OWNER_VIEWER'] })).status).toBe(201);
    expect((await asGrantee('POST', BASE, { orgId: other, userId: helper, roles: ['ORG_OWNER_VIEWER'] })).status).toBe(403);
    expect((await asGrantee('POST', BASE, { instance: true, userId: helper, roles: ['IAM_OWNER'] })).status).toBe(403);
    expect((await asGrantee('GET', `${BASE}/instance:${setup.instanceId}:${adminId}`)).status).toBe(403);
    const visible = await asGrantee('POST', `${BASE}/_search?query.limit=1000`, []);
    expect(visible.body.result.every((m: any) => m.details.resourceOwner.id === setup.orgId)).toBe(true);

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await asGrantee('GET', `${ORGS}/${setup.orgId}`)).status).toBe(403);
  });

  it('project memberships: checked in the project; removed organizations grant nothing', async () => {
    const orgId = await newOrg('Project Member Org');
    const project = await call('POST', `/resources/v3alpha/projects?ctx.orgId=${orgId}`, { name: 'Member Project' });
    expect(project.status).toBe(201);
    const projectId: string = project.body.details.id;
    const lead = await seedMachineUser(node, { username: 'project-lead' });
    const created = await call('POST', BASE, { projectId, userId: lead.userId, roles: ['PROJECT_OWNER'] });
    expect(created.status).toBe(201);
    expect(created.body.details).toMatchObject({ id: `project:${projectId}:${lead.userId}`, resourceOwner: { type: 'OWNER_TYPE_ORG', id: orgId } });
    expect((await call('POST', BASE, { projectId, userId: lead.userId, roles: ['ORG_OWNER'] })).status).toBe(409);

    const asLead = api(node, lead.token);
    const member = await user('project-member');
    expect((await asLead('POST', BASE, { projectId, userId: member, roles: ['PROJECT_OWNER_VIEWER'] })).status).toBe(201); // project.member.write in the project
    expect((await asLead('GET', `${BASE}/project:${projectId}:${member}`)).status).toBe(200);
    expect((await asLead('POST', BASE, { orgId, userId: member, roles: ['ORG_OWNER_VIEWER'] })).status).toBe(403);

    const orgMember = await seedMachineUser(node, { username: 'removed-org-member' });
    expect((await call('POST', BASE, { orgId, userId: orgMember.userId, roles: ['ORG_OWNER'] })).status).toBe(201);
    expect((await api(node, orgMember.token)('GET', `${ORGS}/${orgId}`)).status).toBe(200);
    expect((await call('DELETE', `${ORGS}/${orgId}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/org:${orgId}:${orgMember.userId}`)).status).toBe(404);
    expect((await call('GET', `${BASE}/project:${projectId}:${lead.userId}`)).status).toBe(404);
    expect((await call('POST', `${BASE}/_search`, [{ contextId: { id: orgId } }])).body.result ?? []).toEqual([]);
    expect((await asLead('POST', `${BASE}/_search`, [])).body.result ?? []).toEqual([]);
  });
});
