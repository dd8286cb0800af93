/**
 * PlatformGrants user grants over JSON/HTTP against a started node: CRUD, activation, search
 * (filters, sorting, paging, limits), the cross-organization rules and bad input. Project
 * grants, permissions and gRPC: grants.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantBuilders, PG, startGrantsWorld, stopGrantsWorld, UG, type GrantsWorld } from './grants.fixture.js';
import { violatedFields } from './harness.js';

let world: GrantsWorld | undefined;
let call: GrantsWorld['call'];
let setup: GrantsWorld['setup'];
let otherOrg: string;
let thirdOrg: string;

beforeAll(async () => {
  world = await startGrantsWorld('User Grants');
  ({ call, setup, otherOrg, thirdOrg } = world);
});
afterAll(() => stopGrantsWorld(world));

const { created, project, machine } = grantBuilders(() => world as GrantsWorld);

describe('user grants', () => {
  it('grants a user of the project organization roles of the project', async () => {
    const projectId = await project('UG Own', ['admin', 'reader']);
    const userId = await machine('ug-own');
    const response = await call('POST', UG, { userId, projectId, roleKeys: ['reader'] });
    expect(response.status).toBe(201);
    const id: string = response.body.details.id;
    expect(response.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: setup.orgId });
    const got = await call('GET', `${UG}/${id}`);
    expect(got.body.userGrant).toMatchObject({
      userGrant: { userId, projectId, roleKeys: ['reader'] },
      state: 'EFFECTIVE_STATE_ACTIVE',
      projectOrgId: setup.orgId,
      details: { id, sequence: response.body.details.sequence },
    });

    const patched = await call('PATCH', `${UG}/${id}`, { roleKeys: { keys: ['admin', 'reader'] } });
    expect(patched.status).toBe(200);
    expect((await call('PATCH', `${UG}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('GET', `${UG}/${id}`)).body.userGrant.userGrant.roleKeys).toEqual(['admin', 'reader']);
    const unknownRole = await call('PATCH', `${UG}/${id}`, { roleKeys: { keys: ['ghost'] } });
    expect(unknownRole.status).toBe(400);
    expect(violatedFields(unknownRole.body)).toContain('userGrant.roleKeys.keys');

    const dup = await call('POST', UG, { userId, projectId, roleKeys: [] });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('user_grant.exists');
    const noRole = await call('POST', UG, { userId: await machine('ug-own-2'), projectId, roleKeys: ['ghost'] });
    expect(noRole.status).toBe(400);
    expect(noRole.body.details[0].id).toBe('user_grant.role_not_found');
    expect(violatedFields(noRole.body)).toEqual(['userGrant.roleKeys']);

    const deactivated = await call('POST', `${UG}/${id}/_deactivate`);
    expect(deactivated.status).toBe(200);
    expect((await call('GET', `${UG}/${id}`)).body.userGrant.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect((await call('POST', `${UG}/${id}/_deactivate`)).body.details.sequence).toBe(deactivated.body.details.sequence);
    expect((await call('POST', `${UG}/${id}/_activate`)).status).toBe(200);

    expect((await call('DELETE', `${UG}/${id}`)).status).toBe(200);
    const gone = await call('GET', `${UG}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('user_grant.not_found');
    expect((await call('DELETE', `${UG}/${id}`)).status).toBe(404);
    expect((await call('POST', UG, { userId, projectId, roleKeys: ['admin'] })).status).toBe(201); // free again
    expect((await call('POST', UG, { userId: '4242', projectId, roleKeys: [] })).body.details[0].id).toBe('user.not_found');
  });

  it('requires a project grant, and a subset of its roles, for a user of another organization', async () => {
    const projectId = await project('UG Cross', ['admin', 'reader']);
    const foreignUser = await machine('ug-foreign', `?ctx.orgId=${otherOrg}`);
    const required = await call('POST', UG, { userId: foreignUser, projectId, roleKeys: ['reader'] });
    expect(required.status).toBe(400);
    expect(required.body.details[0].id).toBe('user_grant.project_grant_required');
    expect(violatedFields(required.body)).toEqual(['userGrant.projectGrantId']);

    const grantId = await created('POST', PG, { projectId, grantedOrgId: otherOrg, roleKeys: ['reader'] });
    const thirdGrant = await created('POST', PG, { projectId, grantedOrgId: thirdOrg, roleKeys: ['reader'] });
    const wrongGrant = await call('POST', UG, { userId: foreignUser, projectId, projectGrantId: thirdGrant, roleKeys: ['reader'] });
    expect(wrongGrant.body.details[0].id).toBe('user_grant.project_grant_invalid');
    const notGranted = await call('POST', UG, { userId: foreignUser, projectId, projectGrantId: grantId, roleKeys: ['admin'] });
    expect(notGranted.status).toBe(400);
    expect(notGranted.body.details[0].id).toBe('user_grant.role_not_granted');
    expect(violatedFields(notGranted.body)).toEqual(['userGrant.roleKeys']);

    // widened by the project's organization (another actor): the user's organization sees it at once
    expect((await call('PATCH', `${PG}/${grantId}`, { roleKeys: { keys: ['admin', 'reader'] } })).status).toBe(200);
    const ok = await call('POST', UG, { userId: foreignUser, projectId, projectGrantId: grantId, roleKeys: ['admin', 'reader'] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.details.resourceOwner.id).toBe(otherOrg);
    const id = ok.body.details.id;
    expect((await call('GET', `${UG}/${id}`)).body.userGrant).toMatchObject({ userGrant: { projectGrantId: grantId, roleKeys: ['admin', 'reader'] }, projectOrgId: setup.orgId });

    // narrowing the project grant narrows the user grant when read
    expect((await call('PATCH', `${PG}/${grantId}`, { roleKeys: { keys: ['admin'] } })).status).toBe(200);
    expect((await call('GET', `${UG}/${id}`)).body.userGrant.userGrant.roleKeys).toEqual(['admin']);
    expect((await call('PATCH', `${UG}/${id}`, { roleKeys: { keys: ['admin', 'reader'] } })).body.details[0].id).toBe('user_grant.role_not_granted');
    // a role added to the project (by its organization's actor) is grantable at once
    await created('POST', `/resources/v3alpha/projects/${projectId}/roles`, { key: 'auditor', displayName: 'Auditor' });
    expect((await call('PATCH', `${PG}/${grantId}`, { roleKeys: { keys: ['admin', 'auditor'] } })).status).toBe(200);
    expect((await call('PATCH', `${UG}/${id}`, { roleKeys: { keys: ['auditor'] } })).status).toBe(200);
    expect((await call('GET', `${UG}/${id}`)).body.userGrant.userGrant.roleKeys).toEqual(['auditor']);
    const ownUser = await machine('ug-own-with-grant');
    const needless = await call('POST', UG, { userId: ownUser, projectId, projectGrantId: grantId, roleKeys: [] });
    expect(needless.body.details[0].id).toBe('user_grant.project_grant_invalid');
    expect((await call('GET', `${UG}/${id}?ctx.orgId=${setup.orgId}`)).status).toBe(404);
  });

  it('searches with each filter, sorts by each column both ways and pages', async () => {
    const p1 = await project('UG Search 1', ['a', 'b']);
    const p2 = await project('UG Search 2', ['a']);
    const u1 = await machine('ug-search-1');
    const u2 = await machine('ug-search-2');
    const foreign = await machine('ug-search-foreign', `?ctx.orgId=${otherOrg}`);
    const pg = await created('POST', PG, { projectId: p2, grantedOrgId: otherOrg, roleKeys: ['a'] });
    const g1 = await created('POST', UG, { userId: u1, projectId: p1, roleKeys: ['a', 'b'] });
    const g2 = await created('POST', UG, { userId: u2, projectId: p1, roleKeys: ['b'] });
    const g3 = await created('POST', UG, { userId: u1, projectId: p2, roleKeys: ['a'] });
    const g4 = await created('POST', UG, { userId: foreign, projectId: p2, projectGrantId: pg, roleKeys: ['a'] });
    await call('POST', `${UG}/${g2}/_deactivate`);
    const scope = [{ inIds: { ids: [g1, g2, g3, g4] } }];
    const ids = async (path: string, filters: unknown[] = []) => {
      const response = await call('POST', `${UG}/_search${path}`, [...scope, ...filters]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.result?.map((g: any) => g.details.id) ?? [];
    };
    expect(await ids('')).toEqual([g4, g3, g2, g1]);
    expect(await ids('?query.asc=true')).toEqual([g1, g2, g3, g4]);
    expect(await ids('?sortingColumn=USER_GRANT_FIELD_NAME_ID&query.asc=true')).toEqual([g1, g2, g3, g4]);
    expect(await ids('?sortingColumn=USER_GRANT_FIELD_NAME_ID')).toEqual([g4, g3, g2, g1]);
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_CHANGE_DATE'))[0]).toBe(g2);
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_CHANGE_DATE&query.asc=true'))[3]).toBe(g2);
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_USER_ID&query.asc=true')).slice(0, 2).sort()).toEqual([g1, g3].sort());
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_USER_ID'))[0]).toBe(g4);
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_PROJECT_ID&query.asc=true')).slice(0, 2).sort()).toEqual([g1, g2].sort());
    expect((await ids('?sortingColumn=USER_GRANT_FIELD_NAME_PROJECT_ID')).slice(0, 2).sort()).toEqual([g3, g4].sort());

    expect(await ids('?query.asc=true', [{ userId: { id: u1 } }])).toEqual([g1, g3]);
    expect(await ids('?query.asc=true', [{ projectId: { id: p1 } }])).toEqual([g1, g2]);
    expect(await ids('?query.asc=true', [{ roleKey: { key: 'b' } }])).toEqual([g1, g2]);
    expect(await ids('', [{ orgId: { id: otherOrg } }])).toEqual([g4]);
    expect(await ids('', [{ projectGrantId: { id: pg } }])).toEqual([g4]);
    expect(await ids('', [{ state: { state: 'EFFECTIVE_STATE_INACTIVE' } }])).toEqual([g2]);
    expect(await ids(`?ctx.orgId=${otherOrg}`)).toEqual([g4]);

    const page = await call('POST', `${UG}/_search?query.asc=true&query.offset=1&query.limit=2`, scope);
    expect(page.body.result.map((g: any) => g.details.id)).toEqual([g2, g3]);
    expect(page.body.details).toMatchObject({ appliedLimit: 2, totalResult: '4' });
    const tooMany = await call('POST', `${UG}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toContain('query.limit');
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['missing user', { projectId: '1' }, 'userGrant.userId'],
      ['missing project', { userId: '1' }, 'userGrant.projectId'],
      ['bad role key', { userId: '1', projectId: '1', roleKeys: ['a b'] }, 'userGrant.roleKeys[0]'],
      ['wrong type', { userId: 1, projectId: '1' }, 'userGrant.userId'],
    ];
    for (const [label, body, field] of cases) {
      const response = await call('POST', UG, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
    const badFilter = await call('POST', `${UG}/_search`, [{ userId: {} }]);
    expect(violatedFields(badFilter.body)).toContain('filters[0].userId.id');
  });
});
