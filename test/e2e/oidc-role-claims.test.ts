/**
 * Role claims at introspection and userinfo (reference facts §5.1): per project, merged with
 * `org:projects:roles`, the caller's project only at introspection, restricted by
 * `org:roles:id:{orgId}`, and none without role scopes unless the project asserts roles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { type AppClient, basic, createApp, createMachineClient, getWithBearer, type MachineClient, postForm } from './oidc.fixture.js';
import { readSetup } from './seed.fixture.js';

const P = 'urn:platform:iam:org:';
let node: TestNode;
let bot: MachineClient;
let projectId: string;
let caller: AppClient;
let orgId: string;

beforeAll(async () => {
  node = await startTestNode();
  const call = api(node);
  orgId = (await readSetup(node.dataDir)).orgId;
  bot = await createMachineClient(node, 'role-bot', 'JWT');
  projectId = (await call('POST', '/resources/v3alpha/projects', { name: 'Roles Project' })).body.details.id;
  for (const key of ['reader', 'writer']) expect((await call('POST', `/resources/v3alpha/projects/${projectId}/roles`, { key, displayName: key })).status).toBe(201);
  expect((await call('POST', '/resources/v3alpha/user_grants', { userId: bot.userId, projectId, roleKeys: ['reader', 'writer'] })).status).toBe(201);
  caller = await createApp(node, projectId, 'Roles API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const tokenFor = async (scope: string) =>
  (await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: `${P}project:id:${projectId}:aud ${scope}` }, basic(bot.clientId, bot.secret))).body.access_token as string;

describe('role claims', () => {
  it('appear at introspection (caller project) and userinfo (per project and merged) for projects:roles', async () => {
    const token = await tokenFor(`${P}projects:roles`);
    const roles = { reader: { [orgId]: expect.any(String) }, writer: { [orgId]: expect.any(String) } };
    const introspected = await postForm(node, '/oauth/v2/introspect', { token }, basic(caller.clientId, caller.secret!));
    expect(introspected.body).toMatchObject({ active: true, [`${P}project:roles`]: roles, [`${P}project:${projectId}:roles`]: roles });
    const info = await getWithBearer(node, '/oidc/v1/userinfo', token);
    expect(info.body).toMatchObject({ [`${P}project:${projectId}:roles`]: roles, [`${P}projects:roles`]: roles });
  });

  it('are restricted to the orgs of roles:id scopes', async () => {
    const token = await tokenFor(`${P}projects:roles ${P}roles:id:someone-else`);
    const info = await getWithBearer(node, '/oidc/v1/userinfo', token);
    expect(info.status).toBe(200);
    expect(Object.keys(info.body).filter((k) => k.endsWith(':roles'))).toEqual([]);
  });

  it('are absent without role scopes while the project does not assert roles', async () => {
    const token = await tokenFor('profile');
    const introspected = await postForm(node, '/oauth/v2/introspect', { token }, basic(caller.clientId, caller.secret!));
    expect(introspected.body.active).toBe(true);
    expect(Object.keys(introspected.body).filter((k) => k.endsWith(':roles'))).toEqual([]);
  });

  it('are asserted for the caller project when it has project role assertion', async () => {
    const call = api(node);
    const asserting = (await call('POST', '/resources/v3alpha/projects', { name: 'Asserting Project', projectRoleAssertion: true })).body.details.id as string;
    expect((await call('POST', `/resources/v3alpha/projects/${asserting}/roles`, { key: 'viewer', displayName: 'viewer' })).status).toBe(201);
    expect((await call('POST', '/resources/v3alpha/user_grants', { userId: bot.userId, projectId: asserting, roleKeys: ['viewer'] })).status).toBe(201);
    const assertingCaller = await createApp(node, asserting, 'Asserting API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const token = (await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: `${P}project:id:${asserting}:aud` }, basic(bot.clientId, bot.secret))).body.access_token as string;
    const introspected = await postForm(node, '/oauth/v2/introspect', { token }, basic(assertingCaller.clientId, assertingCaller.secret!));
    expect(introspected.body[`${P}project:roles`]).toEqual({ viewer: { [orgId]: expect.any(String) } });
    expect(introspected.body[`${P}project:${projectId}:roles`]).toBeUndefined(); // the caller's project only
  });
});
