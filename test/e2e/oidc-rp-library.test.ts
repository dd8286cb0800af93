/**
 * The OAuth endpoints driven by real relying-party libraries against a started node:
 * openid-client v6 for discovery, client_credentials (Basic and body), introspection (Basic and
 * private_key_jwt API apps), revocation, userinfo, the JWT profile grant with a service-user key
 * file, token exchange on and off by the instance feature, confidential clients with
 * client_secret_basic / client_secret_post / private_key_jwt and refresh-token rotation; and
 * oauth4webapi as a second, independent library for discovery, client_credentials and
 * introspection. The public client (none + PKCE) and end session are in
 * oidc-rp-library-browser.test.ts.
 */
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { addAppKey, addMachineKey, type AppClient, createApp, createMachineClient, createProject, type KeyFile, type MachineClient } from './oidc.fixture.js';
import { configFor, jwtProfileAssertion, oauthError, privateKeyOf } from './rp-library.fixture.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

let node: TestNode;
let projectId: string;
let jwtBot: MachineClient;
let opaqueBot: MachineClient;
let botKey: KeyFile;
let basicApi: AppClient;
let keyApi: AppClient;
let keyApiKey: KeyFile;
let basicWeb: AppClient;
let postWeb: AppClient;
let keyWeb: AppClient;
let keyWebKey: KeyFile;

const webApp = (authMethod: string) => ({
  oidc: {
    appType: 'OIDC_APP_TYPE_WEB',
    redirectUris: ['https://rp.example.com/cb'],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE'],
    authMethod: `OIDC_AUTH_METHOD_TYPE_${authMethod}`,
    accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
  },
});
const setFeatures = (features: Record<string, boolean>) => api(node)('PATCH', '/settings/v3alpha/features', features);
const projectScope = () => `urn:platform:iam:org:project:id:${projectId}:aud`;
const jwks = () => createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));

beforeAll(async () => {
  node = await startTestNode();
  projectId = await createProject(node, 'RP Library');
  jwtBot = await createMachineClient(node, 'rp-jwt-bot', 'JWT');
  opaqueBot = await createMachineClient(node, 'rp-opaque-bot', 'BEARER');
  botKey = await addMachineKey(node, jwtBot.userId);
  basicApi = await createApp(node, projectId, 'RP Basic API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  keyApi = await createApp(node, projectId, 'RP Key API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } });
  keyApiKey = await addAppKey(node, keyApi.appId);
  basicWeb = await createApp(node, projectId, 'RP Basic Web', webApp('BASIC'));
  postWeb = await createApp(node, projectId, 'RP Post Web', webApp('POST'));
  keyWeb = await createApp(node, projectId, 'RP Key Web', webApp('PRIVATE_KEY_JWT'));
  keyWebKey = await addAppKey(node, keyWeb.appId);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('discovery', () => {
  it('is accepted by openid-client and by oauth4webapi', async () => {
    const config = await configFor(node, opaqueBot.clientId, oidc.ClientSecretBasic(opaqueBot.secret));
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(node.baseUrl);
    expect(meta).toMatchObject({ token_endpoint: `${node.baseUrl}/oauth/v2/token`, userinfo_endpoint: `${node.baseUrl}/oidc/v1/userinfo`, jwks_uri: `${node.baseUrl}/oauth/v2/keys` });
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']));
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);

    const issuer = new URL(node.baseUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
    expect(as).toMatchObject({ issuer: node.baseUrl, introspection_endpoint: `${node.baseUrl}/oauth/v2/introspect`, revocation_endpoint: `${node.baseUrl}/oauth/v2/revoke`, end_session_endpoint: `${node.baseUrl}/oidc/v1/end_session` });
  });
});

describe('client_credentials with openid-client', () => {
  it('issues a JWT access token with client_secret_basic', async () => {
    const config = await configFor(node, jwtBot.clientId, oidc.ClientSecretBasic(jwtBot.secret));
    const tokens = await oidc.clientCredentialsGrant(config, { scope: `profile ${projectScope()}` });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 43_200, scope: `profile ${projectScope()}` });
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.refresh_token).toBeUndefined();
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: node.baseUrl, audience: projectId });
    expect(payload).toMatchObject({ sub: jwtBot.userId, client_id: jwtBot.clientId, aud: [projectId, jwtBot.clientId] });
  });

  it('issues an opaque access token with client_secret_post', async () => {
    const config = await configFor(node, opaqueBot.clientId, oidc.ClientSecretPost(opaqueBot.secret));
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'profile' });
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{51}$/);
  });

  it('surfaces a wrong secret as invalid_client', async () => {
    const config = await configFor(node, opaqueBot.clientId, oidc.ClientSecretBasic('wrong'));
    expect(await oauthError(oidc.clientCredentialsGrant(config))).toBe('401 basic invalid_client');
  });
});

describe('client_credentials and introspection with oauth4webapi', () => {
  const issuer = () => new URL(node.baseUrl);
  const server = async () => oauth.processDiscoveryResponse(issuer(), await oauth.discoveryRequest(issuer(), { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
  const options = { [oauth.allowInsecureRequests]: true };

  it.each([
    ['client_secret_basic', () => oauth.ClientSecretBasic(opaqueBot.secret)],
    ['client_secret_post', () => oauth.ClientSecretPost(opaqueBot.secret)],
  ])('gets a token with %s and an API app introspects it active', async (_name, auth) => {
    const as = await server();
    const bot: oauth.Client = { client_id: opaqueBot.clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, bot, auth(), new URLSearchParams({ scope: `profile ${projectScope()}` }), options);
    const tokens = await oauth.processClientCredentialsResponse(as, bot, response);
    expect(tokens.token_type).toBe('bearer');
    const caller: oauth.Client = { client_id: basicApi.clientId };
    const introspected = await oauth.processIntrospectionResponse(as, caller, await oauth.introspectionRequest(as, caller, oauth.ClientSecretBasic(basicApi.secret!), tokens.access_token, options));
    expect(introspected).toMatchObject({ active: true, sub: opaqueBot.userId, client_id: opaqueBot.clientId, name: 'rp-opaque-bot name' });
    expect(introspected.username).toMatch(/^rp-opaque-bot@/);
  });
});

describe('introspection, userinfo and revocation with openid-client', () => {
  async function botToken(): Promise<string> {
    const config = await configFor(node, opaqueBot.clientId, oidc.ClientSecretBasic(opaqueBot.secret));
    return (await oidc.clientCredentialsGrant(config, { scope: `openid profile ${projectScope()}` })).access_token;
  }

  it('introspects with a client_secret_basic API app and a private_key_jwt API app', async () => {
    const token = await botToken();
    const basicConfig = await configFor(node, basicApi.clientId, oidc.ClientSecretBasic(basicApi.secret!));
    expect(await oidc.tokenIntrospection(basicConfig, token)).toMatchObject({ active: true, sub: opaqueBot.userId, aud: [projectId, opaqueBot.clientId], scope: `openid profile ${projectScope()}` });
    const keyConfig = await configFor(node, keyApi.clientId, oidc.PrivateKeyJwt(await privateKeyOf(keyApiKey)));
    expect(await oidc.tokenIntrospection(keyConfig, token)).toMatchObject({ active: true, sub: opaqueBot.userId });
    const wrong = await configFor(node, basicApi.clientId, oidc.ClientSecretBasic('wrong'));
    expect(await oauthError(oidc.tokenIntrospection(wrong, token))).toBe('401 basic invalid_client');
  });

  it('reads userinfo, then revokes the token so that userinfo and introspection refuse it', async () => {
    const token = await botToken();
    const botConfig = await configFor(node, opaqueBot.clientId, oidc.ClientSecretBasic(opaqueBot.secret));
    const info = await oidc.fetchUserInfo(botConfig, token, opaqueBot.userId);
    expect(info).toMatchObject({ sub: opaqueBot.userId, name: 'rp-opaque-bot name' });
    expect(info.preferred_username).toMatch(/^rp-opaque-bot@/);
    await expect(oidc.fetchUserInfo(botConfig, token, 'someone-else')).rejects.toThrow();

    await oidc.tokenRevocation(botConfig, token);
    await oidc.tokenRevocation(botConfig, 'never-issued'); // RFC 7009: 200 for unknown tokens
    const introspector = await configFor(node, basicApi.clientId, oidc.ClientSecretBasic(basicApi.secret!));
    expect(await oidc.tokenIntrospection(introspector, token)).toEqual({ active: false });
    const refused = await oidc.fetchUserInfo(botConfig, token, opaqueBot.userId).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    expect((refused as oidc.WWWAuthenticateChallengeError).cause[0]).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token' } });
  });
});

describe('JWT profile grant with a service-user key file', () => {
  it('issues tokens whose ID token openid-client validates', async () => {
    const config = await configFor(node, jwtBot.userId, oidc.None());
    const assertion = await jwtProfileAssertion(node, jwtBot.userId, botKey);
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, { assertion, scope: 'openid profile' });
    expect(tokens.claims()).toMatchObject({ iss: node.baseUrl, sub: jwtBot.userId, aud: [jwtBot.userId] });
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: node.baseUrl });
    expect(payload).toMatchObject({ sub: jwtBot.userId, scope: 'openid profile' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(await oauthError(oidc.genericGrantRequest(config, JWT_BEARER, { assertion, scope: 'openid' }))).toBe('invalid_grant'); // replayed jti
  });
});

describe('token exchange and confidential clients', () => {
  async function subjectToken(): Promise<string> {
    const config = await configFor(node, opaqueBot.clientId, oidc.ClientSecretBasic(opaqueBot.secret));
    return (await oidc.clientCredentialsGrant(config, { scope: 'openid profile offline_access' })).access_token;
  }
  const exchangeParams = async () => ({ subject_token: await subjectToken(), subject_token_type: ACCESS_TOKEN_TYPE, scope: 'openid profile offline_access' });

  it('is refused while the token_exchange feature is off', async () => {
    expect((await setFeatures({ token_exchange: false })).status).toBe(200);
    const config = await configFor(node, basicWeb.clientId, oidc.ClientSecretBasic(basicWeb.secret!));
    expect(await oauthError(oidc.genericGrantRequest(config, EXCHANGE, await exchangeParams()))).toBe('invalid_request');
  });

  it.each([
    ['client_secret_basic', () => ({ client: basicWeb, auth: Promise.resolve(oidc.ClientSecretBasic(basicWeb.secret!)) })],
    ['client_secret_post', () => ({ client: postWeb, auth: Promise.resolve(oidc.ClientSecretPost(postWeb.secret!)) })],
    ['private_key_jwt', () => ({ client: keyWeb, auth: privateKeyOf(keyWebKey).then((key) => oidc.PrivateKeyJwt(key)) })],
  ])('exchanges with %s once the feature is on, then refreshes with rotation', async (_name, pick) => {
    expect((await setFeatures({ token_exchange: true })).status).toBe(200);
    const { client, auth } = pick();
    const config = await configFor(node, client.clientId, await auth);
    const exchanged = await oidc.genericGrantRequest(config, EXCHANGE, await exchangeParams());
    expect(exchanged).toMatchObject({ token_type: 'bearer', issued_token_type: ACCESS_TOKEN_TYPE, scope: 'openid profile offline_access' });
    expect(exchanged.claims()).toMatchObject({ iss: node.baseUrl, sub: opaqueBot.userId, azp: client.clientId });
    const refreshToken = exchanged.refresh_token!;
    expect(refreshToken).toEqual(expect.any(String));

    const refreshed = await oidc.refreshTokenGrant(config, refreshToken);
    expect(refreshed.refresh_token).not.toBe(refreshToken);
    expect(refreshed.claims()).toMatchObject({ sub: opaqueBot.userId, aud: expect.arrayContaining([client.clientId]) });
    expect(await oidc.fetchUserInfo(config, refreshed.access_token, opaqueBot.userId)).toMatchObject({ name: 'rp-opaque-bot name' });
    expect(await oauthError(oidc.refreshTokenGrant(config, refreshToken))).toBe('invalid_grant'); // rotated
    expect(await oauthError(oidc.refreshTokenGrant(config, refreshed.refresh_token!, { scope: 'openid email' }))).toBe('invalid_scope');

    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    expect(await oauthError(oidc.refreshTokenGrant(config, refreshed.refresh_token!))).toBe('invalid_grant');
    await expect(oidc.fetchUserInfo(config, refreshed.access_token, opaqueBot.userId)).rejects.toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
  });

  it('refuses a confidential client without its registered authentication', async () => {
    const asPost = await configFor(node, basicWeb.clientId, oidc.ClientSecretPost(basicWeb.secret!));
    expect(await oauthError(oidc.genericGrantRequest(asPost, EXCHANGE, await exchangeParams()))).toBe('invalid_client');
    const wrongKey = await configFor(node, keyWeb.clientId, oidc.PrivateKeyJwt(await privateKeyOf(keyApiKey)));
    expect(await oauthError(oidc.genericGrantRequest(wrongKey, EXCHANGE, await exchangeParams()))).toBe('invalid_client');
  });
});
