/**
 * PlatformOrganizations over JSON/HTTP against a started node: CRUD, search (filters,
 * sorting, paging, limits), the instance default, authentication and permissions, and bad
 * input (400 naming the field, nothing written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const BASE = '/resources/v3alpha/organizations';

describe.each([['uws'], ['node']])('organizations over JSON/HTTP (%s adapter)', (adapter) => {
  let node: TestNode;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    node = await startTestNode({ env: { TESSERA_HTTP: adapter } });
    call = api(node);
  });
  afterAll(async () => {
    await node.stop();
    node.cleanup();
  });

  it('creates, reads, patches (also as a no-op), searches and deletes an organization', async () => {
    const created = await call('POST', BASE, { name: 'Acme Corp' });
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    expect(id).toMatch(/^\d+$/);
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id });
    expect(typeof created.body.details.sequence).toBe('string');

    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.organization).toMatchObject({
      organization: { name: 'Acme Corp' },
      state: 'EFFECTIVE_STATE_ACTIVE',
      primaryDomain: 'acme-corp.localhost',
      details: { id, sequence: created.body.details.sequence },
    });
    expect(got.body.organization.isInstanceDefault).toBeUndefined(); // false is omitted on the wire

    const patched = await call('PATCH', `${BASE}/${id}`, { name: 'Acme Inc' });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    const noop = await call('PATCH', `${BASE}/${id}`, { name: 'Acme Inc' });
    expect(noop.status).toBe(200);
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    const empty = await call('PATCH', `${BASE}/${id}`, {});
    expect(empty.status).toBe(200);
    expect(empty.body.details.sequence).toBe(patched.body.details.sequence);

    const found = await call('POST', `${BASE}/_search`, [{ name: { name: 'acme', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }]);
    expect(found.status).toBe(200);
    expect(found.body.result.map((o: any) => o.details.id)).toEqual([id]);
    expect(found.body.details).toMatchObject({ appliedLimit: 100, endOfList: true, totalResult: '1' });
    expect(BigInt(found.body.details.processedSequence)).toBeGreaterThanOrEqual(BigInt(patched.body.details.sequence));
    expect(found.body.details.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);

    const deleted = await call('DELETE', `${BASE}/${id}`);
    expect(deleted.status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('PATCH', `${BASE}/${id}`, { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    // the name is free again
    expect((await call('POST', BASE, { name: 'Acme Corp' })).status).toBe(201);
  });

  it('refuses a duplicate name with 409 regardless of case', async () => {
    expect((await call('POST', BASE, { name: 'Unique Ltd' })).status).toBe(201);
    const dup = await call('POST', BASE, { name: 'unique ltd' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe(6);
    expect(dup.body.details[0]).toMatchObject({ id: 'org.name_taken' });
  });

  it('sorts by each column in both directions and pages with offset', async () => {
    const names = ['Sort C', 'Sort A', 'Sort B'];
    for (const name of names) expect((await call('POST', BASE, { name })).status).toBe(201);
    const filter = [{ name: { name: 'Sort ', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }];
    const byName = async (asc: boolean, extra = '') =>
      (await call('POST', `${BASE}/_search?sortingColumn=ORGANIZATION_FIELD_NAME_NAME&query.asc=${asc}${extra}`, filter)).body;
    expect((await byName(true)).result.map((o: any) => o.organization.name)).toEqual(['Sort A', 'Sort B', 'Sort C']);
    expect((await byName(false)).result.map((o: any) => o.organization.name)).toEqual(['Sort C', 'Sort B', 'Sort A']);
    const page = await byName(true, '&query.offset=1&query.limit=1');
    expect(page.result.map((o: any) => o.organization.name)).toEqual(['Sort B']);
    expect(page.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.details.endOfList).toBeUndefined(); // false is omitted on the wire (proto3 JSON)
    const last = await byName(true, '&query.offset=2&query.limit=1');
    expect(last.details.endOfList).toBe(true);
    // default: creation date, descending
    const byDefault = (await call('POST', `${BASE}/_search`, filter)).body;
    expect(byDefault.result.map((o: any) => o.organization.name)).toEqual(['Sort B', 'Sort A', 'Sort C']);
    const numeric = (await call('POST', `${BASE}/_search?sorting_column=4&query.asc=true`, filter)).body;
    expect(numeric.sortingColumn).toBe('ORGANIZATION_FIELD_NAME_NAME');
    expect(numeric.result.map((o: any) => o.organization.name)).toEqual(['Sort A', 'Sort B', 'Sort C']);
  });

  it('filters by ids and primary domain', async () => {
    const a = (await call('POST', BASE, { name: 'Filter One' })).body.details.id;
    const b = (await call('POST', BASE, { name: 'Filter Two' })).body.details.id;
    const byIds = await call('POST', `${BASE}/_search?query.asc=true`, [{ inIds: { ids: [a, b] } }]);
    expect(byIds.body.result.map((o: any) => o.details.id)).toEqual([a, b]);
    const byDomain = await call('POST', `${BASE}/_search`, [{ primaryDomain: { domain: 'filter-two.localhost', method: 'TEXT_FILTER_METHOD_EQUALS' } }]);
    expect(byDomain.body.result.map((o: any) => o.details.id)).toEqual([b]);
  });

  it('manages the instance default organization', async () => {
    const first = await call('GET', `${BASE}/_instance_default`);
    expect(first.status).toBe(200);
    expect(first.body.organization.isInstanceDefault).toBe(true);
    expect(first.body.organization.organization.name).toBe('Default');
    const cannotDelete = await call('DELETE', `${BASE}/${first.body.organization.details.id}`);
    expect(cannotDelete.status).toBe(400);
    expect(cannotDelete.body.code).toBe(9);

    const other = (await call('POST', BASE, { name: 'Next Default' })).body.details.id;
    expect((await call('POST', `${BASE}/${other}/_set_as_instance_default`)).status).toBe(200);
    const now = await call('GET', `${BASE}/_instance_default`);
    expect(now.body.organization.details.id).toBe(other);
    expect((await call('POST', `${BASE}/${first.body.organization.details.id}/_set_as_instance_default`)).status).toBe(200);
    expect((await call('POST', `${BASE}/999999/_set_as_instance_default`)).status).toBe(404);
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const before = (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const cases: [string, string, unknown, string][] = [
      ['malformed JSON', BASE, '{"name":', 'organization'],
      ['wrong type', BASE, { name: 123 }, 'organization.name'],
      ['missing name', BASE, {}, 'organization.name'],
      ['blank name', BASE, { name: '   ' }, 'organization.name'],
      ['over-long name', BASE, { name: 'x'.repeat(201) }, 'organization.name'],
      ['unknown enum in filter', `${BASE}/_search`, [{ name: { name: 'a', method: 'TEXT_FILTER_METHOD_NOPE' } }], 'filters[0].name.method'],
      ['over-long filter', `${BASE}/_search`, [{ name: { name: 'x'.repeat(201) } }], 'filters[0].name.name'],
      ['limit above 1000', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['unknown sorting column', `${BASE}/_search?sortingColumn=ORGANIZATION_FIELD_NAME_NOPE`, [], 'sortingColumn'],
      ['non-boolean asc', `${BASE}/_search?query.asc=maybe`, [], 'query.asc'],
    ];
    for (const [label, path, body, field] of cases) {
      const response = await call('POST', path, body);
      expect(response.status, label).toBe(400);
      expect(response.body.code, label).toBe(3);
      const violations = response.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      expect(violations?.fieldViolations?.map((v: any) => v.field), label).toContain(field);
      expect(JSON.stringify(response.body), label).not.toMatch(/at .*\.js:\d+/); // no stack trace
    }
    const after = (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    expect(after).toBe(before);
  });

  it('answers 401 without or with a wrong token, and 403 without the permission', async () => {
    const anonymous = await api(node, '')('POST', BASE, { name: 'Nope' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe(16);
    expect((await api(node, 'not-a-token')('GET', `${BASE}/_instance_default`)).status).toBe(401);

    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, {
      username: `viewer-${adapter}`,
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/_instance_default`)).status).toBe(200);
    const denied = await asViewer('POST', BASE, { name: 'Viewer Made' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(7);

    const orgOnly = await seedMachineUser(node, {
      username: `org-owner-${adapter}`,
      memberships: [{ contextType: 'org', contextId: setup.orgId, roles: ['ORG_OWNER'] }],
    });
    const asOrgOwner = api(node, orgOnly.token);
    expect((await asOrgOwner('GET', `${BASE}/${setup.orgId}`)).status).toBe(200);
    const other = (await call('POST', BASE, { name: `Not Mine ${adapter}` })).body.details.id;
    expect((await asOrgOwner('GET', `${BASE}/${other}`)).status).toBe(403);
    const visible = await asOrgOwner('POST', `${BASE}/_search?query.limit=1000`, []);
    expect(visible.body.result.map((o: any) => o.details.id)).toEqual([setup.orgId]);
  });

  it('resolves the instance by Host: an unknown host is 404, ctx naming another instance is 403', async () => {
    const unknown = await call('GET', `${BASE}/_instance_default`, undefined, { host: 'unknown.example' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details[0].id).toBe('instance.not_found');
    const setup = await readSetup(node);
    expect((await call('GET', `${BASE}/_instance_default?ctx.instanceId=${setup.instanceId}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/_instance_default?ctx.instance_id=123`)).status).toBe(403);
    expect((await call('GET', `${BASE}/_instance_default?ctx.instanceId=1&ctx.orgId=2`)).status).toBe(400);
    const inOrg = await call('POST', `${BASE}/_search?ctx.orgId=${setup.orgId}`, []);
    expect(inOrg.body.result.map((o: any) => o.details.id)).toEqual([setup.orgId]);
    expect((await call('POST', `${BASE}/_search?ctx.orgId=42`, [])).status).toBe(404);
  });
});
