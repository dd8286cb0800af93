/**
 * Function executions in the OIDC code paths, end to end: a real request_response target on
 * 127.0.0.1 answers `append_claims`; with a `preaccesstoken` execution the JWT access token that
 * openid-client obtains carries the claim (opaque tokens never call the target); with a
 * `preuserinfo` execution the claim shows in userinfo (fetchUserInfo), introspection and the ID
 * token, existing and reserved claims are not overridden, log lines land in the log claim and
 * `set_user_metadata` is written on the user.
 * Without executions nothing is called.
 */
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/executions/signature.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { addMachineKey, type AppClient, createApp, createMachineClient, createProject, type KeyFile, type MachineClient } from './oidc.fixture.js';
import { configFor, jwtProfileAssertion } from './rp-library.fixture.js';
import { startTargetServer, type TargetServer } from './targets.fixture.js';

const E = '/resources/v3alpha/executions';
const GOLD = { append_claims: [{ key: 'tier', value: 'gold' }] };

let node: TestNode;
let server: TargetServer;
let projectId: string;
let jwtBot: MachineClient;
let opaqueBot: MachineClient;
let botKey: KeyFile;
let introspector: AppClient;
const signingKeys = new Map<string, string>();

beforeAll(async () => {
  server = await startTargetServer();
  server.on('/preaccesstoken', () => ({ body: GOLD }));
  server.on('/preuserinfo', () => ({
    body: {
      append_claims: [
        { key: 'tier', value: 'gold' },
        { key: 'sub', value: 'overridden' },
        { key: 'urn:platform:iam:org:id', value: 'forged' },
      ],
      append_log_claims: ['checked by the target'],
      set_user_metadata: [
        { key: 'plan', value: Buffer.from('gold').toString('base64') },
        { key: 'broken', value: '%%%' },
      ],
    },
  }));
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
  projectId = await createProject(node, 'Functions');
  jwtBot = await createMachineClient(node, 'fn-jwt-bot', 'JWT');
  opaqueBot = await createMachineClient(node, 'fn-opaque-bot', 'BEARER');
  botKey = await addMachineKey(node, jwtBot.userId);
  introspector = await createApp(node, projectId, 'Functions API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  expect((await api(node)('POST', `/resources/v3alpha/projects/${projectId}/roles`, { key: 'reader', displayName: 'Reader' })).status).toBe(201);
  expect((await api(node)('POST', '/resources/v3alpha/user_grants', { userId: jwtBot.userId, projectId, roleKeys: ['reader'] })).status).toBe(201);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
  await server.close();
});

async function functionExecution(name: string): Promise<void> {
  const target = await api(node)('POST', '/resources/v3alpha/targets', { name: `${name}-target`, restRequestResponse: { url: server.url(`/${name}`) }, timeout: '5s', interruptOnError: true });
  expect(target.status, JSON.stringify(target.body)).toBe(201);
  signingKeys.set(name, target.body.signingKey);
  const put = await api(node)('POST', E, { condition: { function: name }, targets: [target.body.details.id] });
  expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
}

const jwks = () => createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
const scope = () => `openid profile urn:platform:iam:org:project:id:${projectId}:aud`;
const botConfig = (bot: MachineClient) => configFor(node, bot.clientId, oidc.ClientSecretBasic(bot.secret));

describe('function executions', () => {
  it('calls no target while the instance has no function execution', async () => {
    const tokens = await oidc.clientCredentialsGrant(await botConfig(jwtBot), { scope: scope() });
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: node.baseUrl });
    expect(payload.tier).toBeUndefined();
    expect(await oidc.fetchUserInfo(await botConfig(jwtBot), tokens.access_token, jwtBot.userId)).not.toHaveProperty('tier');
    expect(server.calls).toHaveLength(0);
  });

  it('preaccesstoken adds the target’s claim to the JWT access token obtained through openid-client', async () => {
    await functionExecution('preaccesstoken');
    const tokens = await oidc.clientCredentialsGrant(await botConfig(jwtBot), { scope: scope() });
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: node.baseUrl });
    expect(payload).toMatchObject({ tier: 'gold', sub: jwtBot.userId, client_id: jwtBot.clientId });

    const [call] = server.callsTo('/preaccesstoken');
    expect(verifySignature(String(call!.headers['platform-signature']), call!.body, signingKeys.get('preaccesstoken')!, Math.floor(Date.now() / 1000))).toBe(true);
    expect(call!.json).toMatchObject({
      function: 'function/preaccesstoken',
      userinfo: { sub: jwtBot.userId, client_id: jwtBot.clientId },
      user: { id: jwtBot.userId, username: 'fn-jwt-bot', machine: { name: 'fn-jwt-bot name' } },
      org: { id: expect.any(String) },
      user_grants: [{ user_id: jwtBot.userId, project_id: projectId, roles: ['reader'], state: 1 }],
      application: { client_id: jwtBot.clientId },
    });

    const before = server.callsTo('/preaccesstoken').length;
    await oidc.clientCredentialsGrant(await botConfig(opaqueBot), { scope: scope() });
    expect(server.callsTo('/preaccesstoken')).toHaveLength(before); // opaque tokens are not hooked
  });

  it('preuserinfo adds the claim to userinfo, introspection and the ID token without overriding', async () => {
    await functionExecution('preuserinfo');
    const config = await botConfig(opaqueBot);
    const token = (await oidc.clientCredentialsGrant(config, { scope: scope() })).access_token;
    const info = await oidc.fetchUserInfo(config, token, opaqueBot.userId);
    expect(info).toMatchObject({ sub: opaqueBot.userId, tier: 'gold', name: 'fn-opaque-bot name' });
    expect(info).not.toHaveProperty('urn:platform:iam:org:id');
    expect(info['urn:platform:iam:action:preuserinfo:log']).toEqual(['checked by the target', 'key "sub" already exists', 'failed to set user metadata "broken"']);
    const withMetadata = (await oidc.clientCredentialsGrant(config, { scope: 'profile urn:platform:iam:user:metadata' })).access_token;
    expect((await oidc.fetchUserInfo(config, withMetadata, opaqueBot.userId))['urn:platform:iam:user:metadata']).toEqual({ plan: Buffer.from('gold').toString('base64url') }); // set_user_metadata written
    expect(server.callsTo('/preuserinfo').at(-1)!.json).toMatchObject({ function: 'function/preuserinfo', userinfo: { sub: opaqueBot.userId, name: 'fn-opaque-bot name' } });

    const introspection = await configFor(node, introspector.clientId, oidc.ClientSecretBasic(introspector.secret!));
    expect(await oidc.tokenIntrospection(introspection, token)).toMatchObject({ active: true, sub: opaqueBot.userId, tier: 'gold' });

    const viaKey = await configFor(node, jwtBot.userId, oidc.None());
    const tokens = await oidc.genericGrantRequest(viaKey, 'urn:ietf:params:oauth:grant-type:jwt-bearer', { assertion: await jwtProfileAssertion(node, jwtBot.userId, botKey), scope: 'openid' });
    expect(tokens.claims()).toMatchObject({ sub: jwtBot.userId, tier: 'gold' });
    expect((await jwtVerify(tokens.access_token, jwks())).payload.tier).toBe('gold'); // preaccesstoken still on
  });

  it('fails the token request when an interrupt_on_error target fails', async () => {
    server.on('/preaccesstoken', () => ({ status: 503 }));
    try {
      const failed = await oidc.clientCredentialsGrant(await botConfig(jwtBot), { scope: scope() }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(oidc.ResponseBodyError);
      expect(failed).toMatchObject({ error: 'invalid_request', status: 400 });
    } finally {
      server.on('/preaccesstoken', () => ({ body: GOLD }));
    }
  });

  it('stops calling targets once the executions are removed', async () => {
    for (const name of ['preaccesstoken', 'preuserinfo']) expect((await api(node)('DELETE', `${E}/${encodeURIComponent(`function/${name}`)}`)).status).toBe(200);
    const calls = server.calls.length;
    const tokens = await oidc.clientCredentialsGrant(await botConfig(jwtBot), { scope: scope() });
    expect((await jwtVerify(tokens.access_token, jwks())).payload.tier).toBeUndefined();
    expect(await oidc.fetchUserInfo(await botConfig(jwtBot), tokens.access_token, jwtBot.userId)).not.toHaveProperty('tier');
    expect(server.calls).toHaveLength(calls);
  });
});
