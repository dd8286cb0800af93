/**
 * Tenant isolation (design §3): a second instance's admin gets 404 for every id of the first
 * instance, its searches never include the first instance's data, and a token of one instance
 * means nothing on another's host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from '../e2e/harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from '../e2e/system-user.fixture.js';

const R = '/resources/v3alpha';
let node: TestNode;
let first: ReturnType<typeof api>;
let second: ReturnType<typeof api>;
let secondHost: string;
let secondToken: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const ops = await createSystemUserKey('ops');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
  first = api(node);
  const created = await systemApi(node, ops)('POST', `${R}/instances`, { name: 'Second', domain: 'second.test', admin: { username: 'second-admin' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  secondHost = `second.test:${node.httpPort}`;
  secondToken = created.body.adminToken;
  const onSecond = api(node, secondToken);
  second = (method, path, body, headers = {}) => onSecond(method, path, body, { host: secondHost, ...headers });

  const create = async (key: string, path: string, body: unknown) => {
    const response = await first('POST', path, body);
    expect(response.status, `${key}: ${JSON.stringify(response.body)}`).toBe(201);
    ids[key] = response.body.details.id;
  };
  await create('organization', `${R}/organizations`, { name: 'First Only' });
  await create('user', `${R}/users`, { human: { username: 'first-human', profile: { givenName: 'F', familyName: 'H' }, email: { address: 'f@example.com' } } });
  await create('machine', `${R}/users`, { machine: { username: 'first-machine', name: 'First machine' } });
  await create('project', `${R}/projects`, { name: 'First Project' });
  await create('app', `${R}/apps`, { projectId: ids.project, name: 'First App', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  await create('domain', `${R}/domains`, { domain: 'first-only.example.com' });
  await create('userSchema', `${R}/user_schemas`, { type: 'first-schema', schema: { type: 'object' } });
  await create('target', `${R}/targets`, { name: 'first-target', restWebhook: { url: 'https://hooks.example.com/x' }, timeout: '5s' });
  await create('membership', `${R}/memberships`, { orgId: ids.organization, userId: ids.machine, roles: ['ORG_OWNER'] });
});

afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('a second instance', () => {
  it.each([
    ['organization', 'organizations'],
    ['user', 'users'],
    ['machine', 'users'],
    ['project', 'projects'],
    ['app', 'apps'],
    ['domain', 'domains'],
    ['userSchema', 'user_schemas'],
    ['target', 'targets'],
    ['membership', 'memberships'],
  ])('gets 404 for the first instance’s %s', async (key, collection) => {
    const id = encodeURIComponent(ids[key]!);
    expect((await first('GET', `${R}/${collection}/${id}`)).status).toBe(200);
    const foreign = await second('GET', `${R}/${collection}/${id}`);
    expect(foreign.status).toBe(404);
    expect((await second('DELETE', `${R}/${collection}/${id}`)).status).toBe(404);
  });

  it.each([
    ['organizations', 'organization'],
    ['users', 'user'],
    ['projects', 'project'],
    ['apps', 'app'],
    ['domains', 'domain'],
    ['user_schemas', 'userSchema'],
    ['targets', 'target'],
    ['memberships', 'membership'],
  ])('never sees the first instance’s %s in searches (the same search on the first finds it)', async (collection, key) => {
    const own = await first('POST', `${R}/${collection}/_search?query.limit=1000`, []);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((own.body.result as { details: { id: string } }[]).map((r) => r.details.id)).toContain(ids[key]!);
    const response = await second('POST', `${R}/${collection}/_search?query.limit=1000`, []);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const found = JSON.stringify(response.body);
    expect(found).not.toContain(ids[key]!);
    expect(found).not.toMatch(/first-only|First Only|first-human|first-machine|First Project|first-target|first-schema/);
  });

  it('cannot use its token on the first instance, nor the first instance’s token on its host', async () => {
    expect((await second('GET', `${R}/organizations/_instance_default`)).status).toBe(200);
    const secondTokenOnFirst = await api(node, secondToken)('GET', `${R}/organizations/_instance_default`);
    expect(secondTokenOnFirst.status).toBe(401);
    const firstTokenOnSecond = await first('GET', `${R}/organizations/_instance_default`, undefined, { host: secondHost });
    expect(firstTokenOnSecond.status).toBe(401);
  });

  it('cannot name the first instance in ctx', async () => {
    const setup = await first('GET', `${R}/organizations/_instance_default`);
    const firstOrg = setup.body.organization.details.id;
    expect((await first('POST', `${R}/users/_search?ctx.orgId=${firstOrg}`, [])).status).toBe(200);
    expect((await second('POST', `${R}/users/_search?ctx.orgId=${firstOrg}`, [])).status).toBe(404);
    expect((await first('GET', `${R}/organizations/_instance_default?ctx.instanceDomain=localhost`)).status).toBe(200);
    expect((await second('GET', `${R}/organizations/_instance_default?ctx.instanceDomain=localhost`)).status).toBe(403);
  });
});
