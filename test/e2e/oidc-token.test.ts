/**
 * Token endpoint against a started node with fetch + jose: client_credentials for service users
 * (Basic and body; JWT verified against the JWKS, opaque introspected active), the JWT profile
 * grant with a key file, every error of the seed's token error table by its `error` value, and
 * a resource API call with a client_credentials token whose audience is `platform`.
 */
import { createPrivateKey, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timePrefix } from '../../src/oidc/shared/token-store.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { addMachineKey, basic, createApp, createMachineClient, createProject, type AppClient, type KeyFile, type MachineClient, postForm } from './oidc.fixture.js';

const TOKEN = '/oauth/v2/token';
const PLATFORM_SCOPE = 'urn:platform:iam:org:project:id:platform:aud';

let node: TestNode;
let jwtBot: MachineClient;
let opaqueBot: MachineClient;
let keyFile: KeyFile;
let introspector: AppClient;

beforeAll(async () => {
  node = await startTestNode();
  jwtBot = await createMachineClient(node, 'jwt-bot', 'JWT');
  opaqueBot = await createMachineClient(node, 'opaque-bot', 'BEARER');
  keyFile = await addMachineKey(node, jwtBot.userId);
  const projectId = await createProject(node, 'Token Project');
  introspector = await createApp(node, projectId, 'Introspector', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const assertion = (claims: { iss?: string; sub?: string; aud?: string; iat?: number; exp?: number; jti?: string } = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: claims.jti ?? randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
    .setIssuer(claims.iss ?? jwtBot.userId)
    .setSubject(claims.sub ?? jwtBot.userId)
    .setAudience(claims.aud ?? node.baseUrl)
    .setIssuedAt(claims.iat ?? now)
    .setExpirationTime(claims.exp ?? now + 300)
    .sign(createPrivateKey(keyFile.key));
};

describe('client_credentials', () => {
  it('issues a JWT access token (Basic) that verifies against the JWKS with the granted audience', async () => {
    const res = await postForm(node, TOKEN, { grant_type: 'client_credentials', scope: `openid profile ${PLATFORM_SCOPE} urn:x:unknown` }, basic(jwtBot.clientId, jwtBot.secret));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 43_200, scope: `openid profile ${PLATFORM_SCOPE}` });
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token, createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`)), { issuer: node.baseUrl });
    expect(protectedHeader.typ).toBe('JWT');
    expect(payload).toMatchObject({ sub: jwtBot.userId, aud: ['platform', 'jwt-bot'], client_id: 'jwt-bot', scope: `openid profile ${PLATFORM_SCOPE}` });
    expect(payload.jti).toEqual(expect.any(String));
    expect(res.body.id_token).toBeUndefined();
    expect(res.body.refresh_token).toBeUndefined();
  });

  it('issues an opaque token with body credentials that introspection reports active', async () => {
    const projectScope = `urn:platform:iam:org:project:id:${introspector.projectId}:aud`;
    const res = await postForm(node, TOKEN, { grant_type: 'client_credentials', client_id: opaqueBot.clientId, client_secret: opaqueBot.secret, scope: `profile ${projectScope}` });
    expect(res.status).toBe(200);
    // The issue time (8 characters: seconds, then milliseconds), then 256 random bits (43).
    expect(res.body.access_token).toMatch(/^[A-Za-z0-9_-]{51}$/);
    const introspected = await postForm(node, '/oauth/v2/introspect', { token: res.body.access_token }, basic(introspector.clientId, introspector.secret!));
    expect(introspected.body).toMatchObject({ active: true, sub: opaqueBot.userId, client_id: 'opaque-bot', aud: [introspector.projectId, 'opaque-bot'], token_type: 'Bearer', name: 'opaque-bot name' });
    expect(res.body.access_token.slice(0, 6)).toBe(timePrefix(introspected.body.iat));
    expect(introspected.body.username).toMatch(/^opaque-bot@/);
  });

  it('lets the token call the resource APIs when its audience is platform', async () => {
    const token = (await postForm(node, TOKEN, { grant_type: 'client_credentials', scope: PLATFORM_SCOPE }, basic(opaqueBot.clientId, opaqueBot.secret))).body.access_token as string;
    const withoutRole = await api(node, token)('GET', `/resources/v3alpha/users/${jwtBot.userId}`);
    expect(withoutRole.status).toBe(403); // authenticated as opaque-bot, which holds no role yet
    const granted = await api(node)('POST', '/resources/v3alpha/memberships', { instance: true, userId: opaqueBot.userId, roles: ['IAM_OWNER_VIEWER'] });
    expect(granted.status).toBe(201);
    const withRole = await api(node, token)('GET', `/resources/v3alpha/users/${jwtBot.userId}`);
    expect(withRole.status).toBe(200);
    expect(withRole.body.user.id ?? withRole.body.user.userId ?? jwtBot.userId).toBe(jwtBot.userId);
    const noPlatform = (await postForm(node, TOKEN, { grant_type: 'client_credentials', scope: 'profile' }, basic(opaqueBot.clientId, opaqueBot.secret))).body.access_token as string;
    expect((await api(node, noPlatform)('GET', `/resources/v3alpha/users/${jwtBot.userId}`)).status).toBe(401);
  });
});

describe('client cache', () => {
  it('sees a new machine secret at once: the old one fails, the new one works', async () => {
    const bot = await createMachineClient(node, 'rotating-bot', 'BEARER');
    const cc = { grant_type: 'client_credentials' };
    expect((await postForm(node, TOKEN, cc, basic(bot.clientId, bot.secret))).status).toBe(200);
    const rotated = (await api(node)('POST', `/resources/v3alpha/users/${bot.userId}/_generate_secret`)).body.clientSecret as string;
    expect((await postForm(node, TOKEN, cc, basic(bot.clientId, bot.secret))).body.error).toBe('invalid_client');
    expect((await postForm(node, TOKEN, cc, basic(bot.clientId, rotated))).status).toBe(200);
  });
});

describe('token endpoint errors', () => {
  const cc = { grant_type: 'client_credentials' };
  it.each([
    ['wrong secret (Basic)', () => postForm(node, TOKEN, cc, basic(jwtBot.clientId, 'nope')), 401, 'invalid_client'],
    ['unknown client (body)', () => postForm(node, TOKEN, { ...cc, client_id: 'nobody', client_secret: 'x' }), 401, 'invalid_client'],
    ['no client authentication', () => postForm(node, TOKEN, cc), 401, 'invalid_client'],
    ['unknown grant type', () => postForm(node, TOKEN, { grant_type: 'password' }, basic(jwtBot.clientId, jwtBot.secret)), 400, 'unsupported_grant_type'],
    ['missing grant type', () => postForm(node, TOKEN, {}, basic(jwtBot.clientId, jwtBot.secret)), 400, 'invalid_request'],
    ['repeated parameter', () => postForm(node, TOKEN, 'grant_type=client_credentials&scope=a&scope=b', basic(jwtBot.clientId, jwtBot.secret)), 400, 'invalid_request'],
    ['two authentication mechanisms', () => postForm(node, TOKEN, { ...cc, client_id: jwtBot.clientId, client_secret: jwtBot.secret }, basic(jwtBot.clientId, jwtBot.secret)), 400, 'invalid_request'],
    ['malformed scope', () => postForm(node, TOKEN, { ...cc, scope: 'openid "quoted"' }, basic(jwtBot.clientId, jwtBot.secret)), 400, 'invalid_scope'],
    ['client_credentials for an application', () => postForm(node, TOKEN, cc, basic(introspector.clientId, introspector.secret!)), 400, 'unauthorized_client'],
    ['wrong content type', () => postForm(node, TOKEN, '{}', { ...basic(jwtBot.clientId, jwtBot.secret), 'content-type': 'application/json' }), 400, 'invalid_request'],
  ])('%s → %s', async (_name, send, status, error) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a failed Basic authentication with WWW-Authenticate', async () => {
    const res = await postForm(node, TOKEN, cc, basic(jwtBot.clientId, 'nope'));
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="/);
    const body = await postForm(node, TOKEN, { ...cc, client_id: jwtBot.clientId, client_secret: 'nope' });
    expect(body.headers.get('www-authenticate')).toBeNull();
  });
});

describe('JWT profile grant', () => {
  const grant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

  it('exchanges a key-file assertion for tokens, with an ID token for openid', async () => {
    const res = await postForm(node, TOKEN, { grant_type: grant, assertion: await assertion(), scope: 'openid profile' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile', expires_in: 43_200 });
    expect(res.body.refresh_token).toBeUndefined();
    const keys = createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
    const idToken = await jwtVerify(res.body.id_token, keys, { issuer: node.baseUrl, audience: jwtBot.userId });
    expect(idToken.payload).toMatchObject({ sub: jwtBot.userId, azp: jwtBot.userId });
    const access = await jwtVerify(res.body.access_token, keys, { issuer: node.baseUrl });
    expect(access.payload.sub).toBe(jwtBot.userId);
  });

  it.each([
    ['wrong audience', () => assertion({ aud: 'https://elsewhere.example.com' })],
    ['expired', () => assertion({ iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 60 })],
    ['issued over an hour ago', () => assertion({ iat: Math.floor(Date.now() / 1000) - 7200 })],
    ['iss differs from sub', () => assertion({ iss: 'someone-else' })],
    ['unknown user', () => assertion({ iss: '1', sub: '1' })],
  ])('refuses an assertion that is %s with invalid_grant', async (_name, make) => {
    const res = await postForm(node, TOKEN, { grant_type: grant, assertion: await make(), scope: 'openid' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses a replayed assertion (same jti)', async () => {
    const once = await assertion({ jti: 'replay-me' });
    expect((await postForm(node, TOKEN, { grant_type: grant, assertion: once, scope: 'openid' })).status).toBe(200);
    const again = await postForm(node, TOKEN, { grant_type: grant, assertion: once, scope: 'openid' });
    expect(again.body.error).toBe('invalid_grant');
  });

  it('requires the scope parameter', async () => {
    expect((await postForm(node, TOKEN, { grant_type: grant, assertion: await assertion() })).body.error).toBe('invalid_request');
  });
});
