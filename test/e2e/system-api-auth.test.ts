/**
 * System API authentication against a started node: system users configured with public keys
 * (TESSERA_SYSTEM_USERS) call with self-signed JWTs (ES256, EdDSA, RS256); no or an invalid
 * token → 401, an instance's personal access token → 403 auth.system_required, roles checked.
 */
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformInstances } from '../../src/gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createSystemUserKey, mintSystemJwt, systemApi, systemUsersEnv, type MintOptions, type SystemUserKey } from './system-user.fixture.js';

const BASE = '/resources/v3alpha/instances';

let node: TestNode;
let viewer: SystemUserKey;
let rsa: SystemUserKey;
let sys: ReturnType<typeof systemApi>;

beforeAll(async () => {
  const ops = await createSystemUserKey('ops', 'ES256');
  viewer = await createSystemUserKey('auditor', 'EdDSA');
  rsa = await createSystemUserKey('rsa-ops', 'RS256');
  node = await startTestNode({
    env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }, { key: viewer, roles: ['SYSTEM_OWNER_VIEWER'] }, { key: rsa, roles: ['SYSTEM_OWNER', 'SYSTEM_OWNER_VIEWER'] }]) },
  });
  sys = systemApi(node, ops);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const errorId = (body: Record<string, any>) => body.details?.[0]?.id;

describe('system API authentication', () => {
  it('works on any Host, also one no instance has', async () => {
    const response = await sys('POST', `${BASE}/_search`, [], { host: `nowhere.example:${node.httpPort}` });
    expect(response.status).toBe(200);
  });

  it('answers 401 without or with an invalid token, 403 for a personal access token', async () => {
    const anonymous = await api(node, '')('POST', `${BASE}/_search`, []);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe(16);
    const garbage = await api(node, 'not-a-token')('POST', `${BASE}/_search`, []);
    expect(garbage.status).toBe(401);
    const pat = await api(node)('POST', `${BASE}/_search`, []);
    expect(pat.status).toBe(403);
    expect(errorId(pat.body)).toBe('auth.system_required');

    const forger = await generateKeyPair('ES256');
    const cases: [string, Partial<MintOptions>][] = [
      ['expired', { iatOffset: -600, lifetime: 300 }],
      ['signed with another key', { signWith: forger.privateKey }],
      ['unknown issuer', { iss: 'mallory', sub: 'mallory' }],
      ['subject differs from issuer', { sub: 'someone-else' }],
      ['wrong audience', { aud: 'http://elsewhere.example' }],
      ['lives longer than an hour', { lifetime: 7200 }],
      ['issued in the future', { iatOffset: 120 }],
    ];
    for (const [label, mint] of cases) {
      const response = await sys('POST', `${BASE}/_search`, [], { mint });
      expect(response.status, label).toBe(401);
      expect(errorId(response.body), label).toBe('auth.invalid_token');
    }
    const twoAudiences = await sys('POST', `${BASE}/_search`, [], { mint: { aud: ['http://other.example', `http://localhost:${node.httpPort}`] } });
    expect(twoAudiences.status).toBe(200);
  });

  it('accepts each allowed algorithm', async () => {
    expect((await sys('POST', `${BASE}/_search`, [], { key: rsa })).status).toBe(200);
    expect((await sys('POST', `${BASE}/_search`, [], { key: viewer })).status).toBe(200);
  });

  it('checks the system roles: a viewer reads but does not write', async () => {
    expect((await sys('POST', `${BASE}/_search`, [], { key: viewer })).status).toBe(200);
    const denied = await sys('POST', BASE, { name: 'Nope', domain: 'nope.example' }, { key: viewer });
    expect(denied.status).toBe(403);
    expect(errorId(denied.body)).toBe('auth.permission_denied');
    expect((await sys('POST', `${BASE}/_bulk_limit`, [{ instanceId: '1', block: true }], { key: viewer })).status).toBe(403);
  });

  it('answers gRPC with the same codes', async () => {
    const client = createClient(PlatformInstances, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const pat = await client.searchInstances({}, { headers: { authorization: `Bearer ${node.adminToken}` } }).catch((e: unknown) => e);
    expect((pat as ConnectError).code).toBe(Code.PermissionDenied);
    const anonymous = await client.searchInstances({}).catch((e: unknown) => e);
    expect((anonymous as ConnectError).code).toBe(Code.Unauthenticated);
    const httpAudience = await mintSystemJwt(rsa, { aud: node.baseUrl }); // the HTTP URL, not the gRPC one
    const wrong = await client.searchInstances({}, { headers: { authorization: `Bearer ${httpAudience}` } }).catch((e: unknown) => e);
    expect((wrong as ConnectError).code).toBe(Code.Unauthenticated);
  });
});
