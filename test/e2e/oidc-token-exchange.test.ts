/**
 * Token exchange (RFC 8693) against a started node with fetch + jose: off by the instance
 * feature, the seed's requested-type matrix (opaque, jwt, id_token with N_A), refresh tokens
 * for offline_access (with a real rotation), the refused types, audience rules, and
 * impersonation gated by the `impersonation` feature and permission.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { type AppClient, basic, createApp, createMachineClient, createProject, getWithBearer, type MachineClient, postForm } from './oidc.fixture.js';
import { readSetup } from './seed.fixture.js';

const TOKEN = '/oauth/v2/token';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const T = 'urn:ietf:params:oauth:token-type:';
const USER_ID_TYPE = 'urn:platform:params:oauth:token-type:user_id';

let node: TestNode;
let subjectBot: MachineClient;
let actorBot: MachineClient;
let app: AppClient;
let plainApp: AppClient;
let humanId: string;

const oidc = (grantTypes: string[]) => ({
  oidc: { appType: 'OIDC_APP_TYPE_WEB', redirectUris: ['https://tx.example.com/cb'], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes, authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC' },
});
const setFeatures = (features: Record<string, boolean>) => api(node)('PATCH', '/settings/v3alpha/features', features);

beforeAll(async () => {
  node = await startTestNode();
  subjectBot = await createMachineClient(node, 'tx-subject', 'BEARER');
  actorBot = await createMachineClient(node, 'tx-actor', 'BEARER');
  const projectId = await createProject(node, 'Exchange Project');
  app = await createApp(node, projectId, 'Exchanger', oidc(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE']));
  plainApp = await createApp(node, projectId, 'Plain', oidc(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE']));
  humanId = (await api(node)('POST', '/resources/v3alpha/users', { human: { username: 'tx-human', profile: { givenName: 'T', familyName: 'X' }, email: { address: 'tx@example.com' } } })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function accessTokenOf(client: MachineClient, scope = 'openid profile'): Promise<string> {
  return (await postForm(node, TOKEN, { grant_type: 'client_credentials', scope }, basic(client.clientId, client.secret))).body.access_token as string;
}
const exchange = (params: Record<string, string>, client: AppClient = app) => postForm(node, TOKEN, { grant_type: EXCHANGE, ...params }, basic(client.clientId, client.secret!));

describe('token exchange', () => {
  it('is refused while the feature is off', async () => {
    expect((await setFeatures({ token_exchange: false })).status).toBe(200);
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token` });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect((await setFeatures({ token_exchange: true })).status).toBe(200);
  });

  it('exchanges an access token for an opaque one (same subject) with an ID token for openid', async () => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', issued_token_type: `${T}access_token`, scope: 'openid profile', id_token: expect.any(String) });
    expect(res.body.access_token).toMatch(/^[A-Za-z0-9_-]{51}$/);
    expect(res.body.refresh_token).toBeUndefined();
    const info = await getWithBearer(node, '/oidc/v1/userinfo', res.body.access_token);
    expect(info.body).toMatchObject({ sub: subjectBot.userId, name: 'tx-subject name' });
  });

  it('issues a JWT access token for requested_token_type jwt', async () => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot, 'profile'), subject_token_type: `${T}access_token`, requested_token_type: `${T}jwt` });
    expect(res.body).toMatchObject({ token_type: 'Bearer', issued_token_type: `${T}jwt` });
    const { payload } = await jwtVerify(res.body.access_token, createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`)), { issuer: node.baseUrl });
    expect(payload).toMatchObject({ sub: subjectBot.userId, client_id: app.clientId, aud: ['tx-subject', app.clientId] });
    expect(payload.act).toBeUndefined();
  });

  it('places an ID token in access_token with token_type N_A', async () => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token`, requested_token_type: `${T}id_token` });
    expect(res.body).toMatchObject({ token_type: 'N_A', issued_token_type: `${T}id_token` });
    expect(res.body.id_token).toBeUndefined();
    expect(decodeJwt(res.body.access_token)).toMatchObject({ sub: subjectBot.userId, azp: app.clientId });
  });

  it("carries role claims in the JWT and ID token when the app asserts them (the app's project roles of the subject)", async () => {
    const call = api(node);
    const projectId = await createProject(node, 'Exchange Roles Project');
    expect((await call('POST', `/resources/v3alpha/projects/${projectId}/roles`, { key: 'auditor', displayName: 'Auditor' })).status).toBe(201);
    expect((await call('POST', '/resources/v3alpha/user_grants', { userId: subjectBot.userId, projectId, roleKeys: ['auditor'] })).status).toBe(201);
    const asserting = await createApp(node, projectId, 'Asserting Exchanger', {
      oidc: { ...oidc(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE']).oidc, accessTokenRoleAssertion: true, idTokenRoleAssertion: true },
    });
    const roleScope = 'urn:platform:iam:org:project:role:auditor';
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token`, requested_token_type: `${T}jwt`, scope: `openid profile ${roleScope}` }, asserting);
    expect(res.status).toBe(200);
    const claim = 'urn:platform:iam:org:project:roles';
    expect(decodeJwt(res.body.access_token)[claim]).toEqual({ auditor: expect.any(Object) });
    expect(decodeJwt(res.body.id_token)[claim]).toEqual({ auditor: expect.any(Object) });
    const plain = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token`, requested_token_type: `${T}jwt`, scope: `openid profile ${roleScope}` });
    expect(decodeJwt(plain.body.access_token)[claim]).toBeUndefined();
  });

  it('issues a refresh token for offline_access, which rotates', async () => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot, 'profile offline_access'), subject_token_type: `${T}access_token` });
    expect(res.body.refresh_token).toEqual(expect.any(String));
    const refreshed = await postForm(node, TOKEN, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token }, basic(app.clientId, app.secret!));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(res.body.refresh_token);
    expect((await getWithBearer(node, '/oidc/v1/userinfo', res.body.access_token)).status).toBe(401); // rotated away
    const replay = await postForm(node, TOKEN, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token }, basic(app.clientId, app.secret!));
    expect(replay.body.error).toBe('invalid_grant');
  });

  it.each([
    ['requested refresh_token', { requested_token_type: `${T}refresh_token` }, 'invalid_request'],
    ['requested user_id', { requested_token_type: USER_ID_TYPE }, 'invalid_request'],
    ['a refresh_token subject', { subject_token_type: `${T}refresh_token` }, 'invalid_request'],
    ['a jwt subject without actor', { subject_token_type: `${T}jwt` }, 'invalid_request'],
    ['a user_id subject without actor', { subject_token_type: USER_ID_TYPE }, 'invalid_request'],
    ['resource', { resource: 'https://api.example.com' }, 'invalid_target'],
    ['a foreign audience', { audience: 'someone-else' }, 'invalid_target'],
    ['an invalid subject token', { subject_token: 'garbage' }, 'invalid_request'],
  ])('refuses %s', async (_name, extra, error) => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token`, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
  });

  it('refuses a client without the token exchange grant type', async () => {
    const res = await exchange({ subject_token: await accessTokenOf(subjectBot), subject_token_type: `${T}access_token` }, plainApp);
    expect(res.body.error).toBe('unauthorized_client');
  });
});

describe('impersonation', () => {
  const impersonate = async () => exchange({ subject_token: humanId, subject_token_type: USER_ID_TYPE, actor_token: await accessTokenOf(actorBot), actor_token_type: `${T}access_token`, requested_token_type: `${T}jwt`, scope: 'openid email' });

  it('needs the impersonation feature and permission, then carries act', async () => {
    await setFeatures({ token_exchange: true, impersonation: false });
    const off = await impersonate();
    expect(off.status).toBe(403);
    expect(off.body.error).toBe('access_denied');

    await setFeatures({ impersonation: true });
    const noPermission = await impersonate();
    expect(noPermission.status).toBe(403);

    expect((await api(node)('POST', '/resources/v3alpha/memberships', { instance: true, userId: actorBot.userId, roles: ['IAM_END_USER_IMPERSONATOR'] })).status).toBe(201);
    const res = await impersonate();
    expect(res.status).toBe(200);
    const { payload } = await jwtVerify(res.body.access_token, createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`)), { issuer: node.baseUrl });
    expect(payload).toMatchObject({ sub: humanId, act: { iss: node.baseUrl, sub: actorBot.userId } });
    expect(decodeJwt(res.body.id_token)).toMatchObject({ sub: humanId, act: { sub: actorBot.userId } });
    const info = await getWithBearer(node, '/oidc/v1/userinfo', res.body.access_token);
    expect(info.body).toEqual({ sub: humanId, email: 'tx@example.com', email_verified: false });
    // Only the granted exchange left an audit event; the refused ones did not.
    expect(await impersonationsOf(humanId)).toEqual([{ type: 'user.impersonated', creator: actorBot.userId, payload: { actorUserId: actorBot.userId, clientId: app.clientId } }]);
  });
});

/** The subject's `user.impersonated` events, read from the node's LMDB store (a second reader). */
async function impersonationsOf(userId: string): Promise<unknown[]> {
  const { instanceId } = await readSetup(node);
  const store = await openNodeStore(node);
  try {
    return (await store.readStream(instanceId, 'user', userId)).filter((e) => e.type === 'user.impersonated').map(({ type, creator, payload }) => ({ type, creator, payload }));
  } finally {
    await store.close();
  }
}
