/**
 * Role claims at introspection and userinfo (reference facts §5.1): per project, merged with
 * `org:projects:roles`, the caller's project only at introspection, restricted by
 * `org:roles:id:{orgId}`, and none without role scopes unless the project asserts roles. JWT
 * access tokens of an app carry them only with the app's accessTokenRoleAssertion.
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { type AppClient, basic, createApp, createMachineClient, getWithBearer, type MachineClient, postForm, seedRefreshToken } from './oidc.fixture.js';
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
  orgId = (await readSetup(node)).orgId;
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

  describe('in JWT access tokens', () => {
    const webApp = (name: string, accessTokenRoleAssertion: boolean, idTokenRoleAssertion = false) =>
      createApp(node, projectId, name, {
        oidc: {
          appType: 'OIDC_APP_TYPE_WEB',
          redirectUris: ['https://app.example.com/cb'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
          authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
          accessTokenRoleAssertion,
          idTokenRoleAssertion,
        },
      });
    /** A JWT access token of `app` for the bot, through a seeded refresh token. */
    const refreshedToken = async (app: AppClient, scope: string[], which: 'access_token' | 'id_token' = 'access_token') => {
      const token = `seeded-${randomUUID()}`;
      await seedRefreshToken(node, token, {
        grantId: randomUUID(),
        sub: bot.userId,
        clientId: app.clientId,
        aud: [app.clientId, projectId],
        scope,
        accessTokenFormat: 'jwt',
        absoluteExpiresAt: Date.now() + 86_400_000,
        accessToken: { format: 'jwt', ref: 'none', exp: Math.floor(Date.now() / 1000) + 60 },
      });
      const refreshed = await postForm(node, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: token }, basic(app.clientId, app.secret!));
      expect(refreshed.status).toBe(200);
      return decodeJwt(refreshed.body[which] as string);
    };

    it('carry the role claims with accessTokenRoleAssertion', async () => {
      const app = await webApp('Asserting Web', true);
      const claims = await refreshedToken(app, ['offline_access', `${P}projects:roles`]);
      const roles = { reader: { [orgId]: expect.any(String) }, writer: { [orgId]: expect.any(String) } };
      expect(claims).toMatchObject({ [`${P}project:roles`]: roles, [`${P}project:${projectId}:roles`]: roles, [`${P}projects:roles`]: roles });
      const only = await refreshedToken(app, ['offline_access', `${P}project:role:reader`]);
      expect(only[`${P}project:roles`]).toEqual({ reader: { [orgId]: expect.any(String) } });
      expect(only[`${P}projects:roles`]).toBeUndefined();
    });

    it('reach the ID token only with idTokenRoleAssertion', async () => {
      const roles = { reader: { [orgId]: expect.any(String) }, writer: { [orgId]: expect.any(String) } };
      const asserting = await webApp('Id Asserting Web', false, true);
      const idClaims = await refreshedToken(asserting, ['openid', 'offline_access', `${P}projects:roles`], 'id_token');
      expect(idClaims).toMatchObject({ sub: bot.userId, [`${P}project:roles`]: roles, [`${P}projects:roles`]: roles });
      const accessClaims = await refreshedToken(asserting, ['openid', 'offline_access', `${P}projects:roles`]);
      expect(Object.keys(accessClaims).filter((k) => k.endsWith(':roles'))).toEqual([]); // accessTokenRoleAssertion is off
      const plain = await webApp('Id Plain Web', false, false);
      const plainId = await refreshedToken(plain, ['openid', 'offline_access', `${P}projects:roles`], 'id_token');
      expect(Object.keys(plainId).filter((k) => k.endsWith(':roles'))).toEqual([]);
    });

    it('carry none without accessTokenRoleAssertion', async () => {
      const app = await webApp('Plain Web', false);
      const claims = await refreshedToken(app, ['offline_access', `${P}projects:roles`]);
      expect(claims.sub).toBe(bot.userId);
      expect(Object.keys(claims).filter((k) => k.endsWith(':roles'))).toEqual([]);
    });
  });
});

describe('personal access tokens at introspection (reference facts §5.5)', () => {
  it("are active for the caller: its client and project join the audience and the caller project's roles count as requested", async () => {
    const call = api(node);
    const added = await call('POST', `/resources/v3alpha/users/${bot.userId}/tokens`, {});
    expect(added.status).toBe(201);
    const introspected = await postForm(node, '/oauth/v2/introspect', { token: added.body.token }, basic(caller.clientId, caller.secret!));
    const roles = { reader: { [orgId]: expect.any(String) }, writer: { [orgId]: expect.any(String) } };
    expect(introspected.body).toMatchObject({ active: true, sub: bot.userId, jti: added.body.tokenId, aud: [caller.clientId, projectId], [`${P}project:${projectId}:roles`]: roles });
    expect(introspected.body.scope.split(' ')).toEqual(expect.arrayContaining([`${P}project:role:reader`, `${P}project:role:writer`]));

    expect((await call('DELETE', `/resources/v3alpha/users/${bot.userId}/tokens/${added.body.tokenId}`)).status).toBe(200);
    expect((await postForm(node, '/oauth/v2/introspect', { token: added.body.token }, basic(caller.clientId, caller.secret!))).body).toEqual({ active: false });
  });
});
