/**
 * Introspection, userinfo, revocation and refresh-token rotation against a started node with
 * fetch + jose. Refresh tokens are seeded into the TTL table (oidc.fixture.ts) until the code
 * flow issues them; everything else goes through the APIs and the endpoints.
 */
import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { addAppKey, type AppClient, basic, createApp, createMachineClient, createProject, getWithBearer, type MachineClient, postForm, seedRefreshToken } from './oidc.fixture.js';

const TOKEN = '/oauth/v2/token';
const INTROSPECT = '/oauth/v2/introspect';
const REVOKE = '/oauth/v2/revoke';
const USERINFO = '/oidc/v1/userinfo';

let node: TestNode;
let bot: MachineClient;
let jwtBot: MachineClient;
let caller: AppClient;
let keyCaller: AppClient;
let keyCallerKey: { keyId: string; key: string };
let otherCaller: AppClient;
let web: AppClient;
let humanId: string;

const webConfig = {
  oidc: {
    appType: 'OIDC_APP_TYPE_WEB',
    redirectUris: ['https://app.example.com/cb'],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
  },
};

beforeAll(async () => {
  node = await startTestNode();
  bot = await createMachineClient(node, 'intro-bot', 'BEARER');
  jwtBot = await createMachineClient(node, 'intro-jwt-bot', 'JWT');
  const projectId = await createProject(node, 'Introspection Project');
  caller = await createApp(node, projectId, 'Basic API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  keyCaller = await createApp(node, projectId, 'Key API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } });
  keyCallerKey = await addAppKey(node, keyCaller.appId);
  otherCaller = await createApp(node, await createProject(node, 'Other Project'), 'Other API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  web = await createApp(node, projectId, 'Web', webConfig);
  humanId = (
    await api(node)('POST', '/resources/v3alpha/users', {
      human: { username: 'rita', profile: { givenName: 'Rita', familyName: 'Refresh', displayName: 'Rita R' }, email: { address: 'rita@example.com' } },
    })
  ).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function clientCredentials(client: MachineClient, projectId = caller.projectId): Promise<string> {
  const res = await postForm(node, TOKEN, { grant_type: 'client_credentials', scope: `profile urn:platform:iam:org:project:id:${projectId}:aud` }, basic(client.clientId, client.secret));
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

const introspect = (token: string, auth: Record<string, string> = basic(caller.clientId, caller.secret!)) => postForm(node, INTROSPECT, { token }, auth);

function clientAssertion(aud: string) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: keyCallerKey.keyId })
    .setIssuer(keyCaller.clientId)
    .setSubject(keyCaller.clientId)
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(createPrivateKey(keyCallerKey.key));
}

describe('introspection', () => {
  it('reports opaque and JWT tokens active for a caller in their audience', async () => {
    for (const client of [bot, jwtBot]) {
      const res = await introspect(await clientCredentials(client));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ active: true, client_id: client.clientId, sub: client.userId, iss: node.baseUrl, token_type: 'Bearer', scope: expect.stringContaining('profile') });
      expect(res.body.nbf).toBe(res.body.iat);
    }
  });

  it('accepts private_key_jwt callers (aud = issuer or endpoint URL) and refuses replayed assertions', async () => {
    const token = await clientCredentials(bot);
    for (const aud of [node.baseUrl, `${node.baseUrl}${INTROSPECT}`]) {
      const assertion = await clientAssertion(aud);
      const params = { token, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion };
      expect((await postForm(node, INTROSPECT, params)).body.active).toBe(true);
      const replay = await postForm(node, INTROSPECT, params);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toBe('invalid_client');
    }
  });

  it('answers {active:false} for another audience, garbage and ID-token-shaped input', async () => {
    const token = await clientCredentials(bot);
    expect((await introspect(token, basic(otherCaller.clientId, otherCaller.secret!))).body).toEqual({ active: false });
    expect((await introspect('not-a-token')).body).toEqual({ active: false });
    expect((await introspect(`${token.slice(0, -2)}xx`)).body).toEqual({ active: false });
  });

  it.each([
    ['no authentication', () => postForm(node, INTROSPECT, { token: 'x' })],
    ['a wrong secret', () => introspect('x', basic(caller.clientId, 'wrong'))],
    ['client_secret_post', () => postForm(node, INTROSPECT, { token: 'x', client_id: caller.clientId, client_secret: caller.secret! })],
    ['a machine user', () => introspect('x', basic(bot.clientId, bot.secret))],
  ])('refuses %s with 401 invalid_client', async (_name, send) => {
    const res = await send();
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('userinfo', () => {
  it('returns the claims of the granted scopes', async () => {
    const res = await getWithBearer(node, USERINFO, await clientCredentials(jwtBot));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: jwtBot.userId, name: 'intro-jwt-bot name', updated_at: expect.any(Number), preferred_username: expect.stringMatching(/^intro-jwt-bot@/) });
  });

  it('takes the token from a form body on POST (RFC 6750 §2.2), but not from header and body at once', async () => {
    const token = await clientCredentials(jwtBot);
    const fromBody = await postForm(node, USERINFO, { access_token: token });
    expect(fromBody.status).toBe(200);
    expect(fromBody.body.sub).toBe(jwtBot.userId);
    const both = await postForm(node, USERINFO, { access_token: token }, { authorization: `Bearer ${token}` });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
    const json = await fetch(`${node.baseUrl}${USERINFO}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: token }) });
    expect(json.status).toBe(400);
    const badBody = await postForm(node, USERINFO, { access_token: 'garbage' });
    expect(badBody.status).toBe(401);
    expect(badBody.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 401 with a Bearer challenge for missing, invalid and revoked tokens', async () => {
    const missing = await fetch(`${node.baseUrl}${USERINFO}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    const invalid = await getWithBearer(node, USERINFO, 'garbage');
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const token = await clientCredentials(jwtBot);
    expect((await postForm(node, REVOKE, { token }, basic(jwtBot.clientId, jwtBot.secret))).status).toBe(200);
    expect((await getWithBearer(node, USERINFO, token)).status).toBe(401);
  });
});

describe('revocation', () => {
  it('answers 200 for unknown tokens and ends opaque and JWT access tokens', async () => {
    expect((await postForm(node, REVOKE, { token: 'unknown' }, basic(bot.clientId, bot.secret))).status).toBe(200);
    for (const client of [bot, jwtBot]) {
      const token = await clientCredentials(client);
      const res = await postForm(node, REVOKE, { token, token_type_hint: 'access_token' }, basic(client.clientId, client.secret));
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect((await introspect(token)).body).toEqual({ active: false });
    }
  });

  it("leaves another client's token alone", async () => {
    const token = await clientCredentials(bot);
    expect((await postForm(node, REVOKE, { token }, basic(jwtBot.clientId, jwtBot.secret))).status).toBe(200);
    expect((await introspect(token)).body.active).toBe(true);
  });

  it('refuses failed client authentication with 401 invalid_client', async () => {
    const res = await postForm(node, REVOKE, { token: 'x' }, basic(bot.clientId, 'wrong'));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('refresh tokens', () => {
  const seed = async (token: string, clientId = web.clientId) =>
    seedRefreshToken(node, token, {
      grantId: randomUUID(),
      sub: humanId,
      clientId,
      aud: [web.clientId, web.projectId],
      scope: ['openid', 'email', 'profile', 'offline_access'],
      accessTokenFormat: 'opaque',
      absoluteExpiresAt: Date.now() + 86_400_000,
      accessToken: { format: 'opaque', ref: 'none', exp: Math.floor(Date.now() / 1000) + 60 },
    });
  const refresh = (token: string, extra: Record<string, string> = {}, auth = basic(web.clientId, web.secret!)) => postForm(node, TOKEN, { grant_type: 'refresh_token', refresh_token: token, ...extra }, auth);

  it('rotates: new tokens, the old refresh token and the previous access token stop', async () => {
    await seed('seeded-refresh-1');
    const first = await refresh('seeded-refresh-1', { scope: 'openid email offline_access' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer', scope: 'openid email offline_access', id_token: expect.any(String), refresh_token: expect.any(String) });
    const info = await getWithBearer(node, USERINFO, first.body.access_token);
    expect(info.body).toEqual({ sub: humanId, email: 'rita@example.com', email_verified: false });
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.scope).toBe('openid email profile offline_access'); // absent scope → the grant's
    expect((await getWithBearer(node, USERINFO, first.body.access_token)).status).toBe(401);
    expect((await getWithBearer(node, USERINFO, second.body.access_token)).status).toBe(200);
    // Replaying a rotated token is refused and revokes the family (oidc-refresh-reuse.test.ts).
    expect((await refresh('seeded-refresh-1')).body.error).toBe('invalid_grant');
    expect((await getWithBearer(node, USERINFO, second.body.access_token)).status).toBe(401);
  });

  it('refuses a wider scope, another client and unknown tokens', async () => {
    await seed('seeded-refresh-2');
    expect((await refresh('seeded-refresh-2', { scope: 'openid phone' })).body.error).toBe('invalid_scope');
    const other = await createApp(node, web.projectId, 'Web 2', webConfig);
    expect((await refresh('seeded-refresh-2', {}, basic(other.clientId, other.secret!))).body.error).toBe('invalid_grant');
    expect((await refresh('never-issued')).body.error).toBe('invalid_grant');
    expect((await refresh('seeded-refresh-2')).status).toBe(200); // still valid after the refused attempts
  });

  it('answers a correctly authenticated client that does not own the token with invalid_grant or unauthorized_client, never invalid_client', async () => {
    await seed('seeded-refresh-foreign');
    const sameProjectWeb = await createApp(node, web.projectId, 'Web foreign', webConfig);
    const noRefreshGrant = await createApp(node, web.projectId, 'Web without refresh', { oidc: { ...webConfig.oidc, grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'] } });
    const attempts = {
      'another app of the project': await refresh('seeded-refresh-foreign', {}, basic(sameProjectWeb.clientId, sameProjectWeb.secret!)),
      'a service user': await refresh('seeded-refresh-foreign', {}, basic(bot.clientId, bot.secret)),
      'an API app (no refresh grant)': await refresh('seeded-refresh-foreign', {}, basic(caller.clientId, caller.secret!)),
      'an OIDC app without the refresh grant': await refresh('seeded-refresh-foreign', {}, basic(noRefreshGrant.clientId, noRefreshGrant.secret!)),
      'a wrong secret of the owner': await refresh('seeded-refresh-foreign', {}, basic(web.clientId, 'wrong')),
    };
    expect(Object.fromEntries(Object.entries(attempts).map(([who, res]) => [who, `${res.status} ${String(res.body.error)}`]))).toEqual({
      'another app of the project': '400 invalid_grant',
      'a service user': '400 invalid_grant',
      'an API app (no refresh grant)': '400 unauthorized_client',
      'an OIDC app without the refresh grant': '400 unauthorized_client',
      'a wrong secret of the owner': '401 invalid_client', // authentication failed: the only invalid_client
    });
    // Positive control: the owner still refreshes it.
    expect((await refresh('seeded-refresh-foreign')).status).toBe(200);
  });

  it('revoking a refresh token revokes its grant', async () => {
    await seed('seeded-refresh-3');
    const tokens = (await refresh('seeded-refresh-3')).body;
    expect((await getWithBearer(node, USERINFO, tokens.access_token)).status).toBe(200);
    expect((await postForm(node, REVOKE, { token: tokens.refresh_token }, basic(web.clientId, web.secret!))).status).toBe(200);
    expect((await getWithBearer(node, USERINFO, tokens.access_token)).status).toBe(401);
    expect((await refresh(tokens.refresh_token)).body.error).toBe('invalid_grant');
  });
});
