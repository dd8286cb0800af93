/**
 * Key rotation end to end: PlatformWebKeys (list, rotate, permissions, gRPC) on a running node,
 * and `tessera keys rotate|list` on a stopped node's data directory, then a restart; the first
 * token of a key ring untouched since a restart (the cold import, issue 13) for each algorithm.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformWebKeys, WebKeyState } from '../../src/gen/platform/resources/webkey/v3alpha/webkey_service_pb.js';
import { api, runCli, startTestNode, storeEnv, type TestNode } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';
import { basic, createMachineClient, postForm } from './oidc.fixture.js';
import { fetchJwks, listWebKeys } from './web-keys.fixture.js';

let node: TestNode;
let dataDir: string;

beforeAll(async () => {
  node = await startTestNode();
  dataDir = node.dataDir;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const rotate = (body?: unknown, token?: string) => api(node, token)('POST', '/resources/v3alpha/web_keys/_rotate', body);
const kidsOf = async () => (await fetchJwks(node)).keys.map((k) => k.kid).sort();

describe('PlatformWebKeys on a running node', () => {
  it('lists the first two keys: one active, one next, public parts only', async () => {
    const list = await listWebKeys(node);
    expect(list.status).toBe(200);
    expect(list.active).toHaveLength(1);
    expect(list.next).toHaveLength(1);
    expect(list.retired).toEqual([]);
    const active = list.keys[0]!;
    expect(active).toMatchObject({ id: list.active[0], algorithm: 'WEB_KEY_ALGORITHM_RS256', publicKey: { kty: 'RSA', kid: active.id, alg: 'RS256', use: 'sig' } });
    expect(active.details.id).toBe(active.id);
    expect(active.activationDate).toEqual(expect.any(String));
    expect(JSON.stringify(list.keys)).not.toMatch(/PRIVATE|"d"|sealed/i);
    expect(await kidsOf()).toEqual([...list.active, ...list.next].sort());
  });

  it('rotates: next → active, active → retired and still published, a new next; the ETag changes', async () => {
    const before = await listWebKeys(node);
    const etag = (await fetchJwks(node)).headers.etag;
    const response = await rotate({});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ activeKeyId: before.next[0], retiredKeyId: before.active[0], nextKeyId: expect.any(String) });
    expect(response.body.details.id).toBeDefined();

    const after = await listWebKeys(node);
    expect(after.active).toEqual(before.next);
    expect(after.retired).toEqual(before.active);
    expect(after.next).toEqual([response.body.nextKeyId]);
    const retired = after.keys.find((k) => k.id === before.active[0])!;
    expect(Date.parse(retired.removalDate!) - Date.parse(retired.retirementDate!)).toBe(13 * 3_600_000);

    expect(await kidsOf()).toEqual([...before.active, ...before.next, response.body.nextKeyId].sort());
    const revalidated = await fetchJwks(node, { 'if-none-match': String(etag) });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(revalidated.headers.etag).not.toBe(etag);
    expect(revalidated.keys.map((k) => k.kid)).toContain(response.body.nextKeyId);
    // The new ETag revalidates (positive control of the 200 above).
    expect((await fetchJwks(node, { 'if-none-match': String(revalidated.headers.etag) })).status).toBe(304);
  });

  it('makes the new next key with the requested algorithm', async () => {
    const response = await rotate({ algorithm: 'WEB_KEY_ALGORITHM_ES256' });
    expect(response.status).toBe(200);
    const published = (await fetchJwks(node)).keys.find((k) => k.kid === response.body.nextKeyId);
    expect(published).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('rejects an unknown algorithm naming the field', async () => {
    const response = await rotate({ algorithm: 99 });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('rotation.algorithm');
  });

  it('needs iam.web_key.read to list and iam.web_key.write to rotate', async () => {
    const { instanceId } = await readSetup(node);
    const viewer = await seedMachineUser(node, { username: 'key-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const nobody = await seedMachineUser(node, { username: 'key-nobody' });
    expect((await listWebKeys(node, viewer.token)).status).toBe(200);
    const denied = await rotate({}, viewer.token);
    expect(denied.status).toBe(403);
    expect(denied.body.details[0].id).toBe('auth.permission_denied');
    expect((await listWebKeys(node, nobody.token)).status).toBe(403);
    expect((await rotate({}, '')).status).toBe(401);
  });

  it('answers over gRPC as over JSON', async () => {
    const client = createClient(PlatformWebKeys, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const viaGrpc = await client.listWebKeys({}, { headers: { authorization: `Bearer ${node.adminToken}` } });
    const viaJson = await listWebKeys(node);
    expect(viaGrpc.webKeys.map((k) => k.id)).toEqual(viaJson.keys.map((k) => k.id));
    expect(viaGrpc.webKeys[0]?.state).toBe(WebKeyState.ACTIVE);
  });
});

describe('tessera keys (CLI) on the data directory', () => {
  it('rotates a stopped node\'s keys; the restarted node has the new active key and still publishes the old', async () => {
    const before = await listWebKeys(node);
    await node.stop();

    const rotated = await runCli(['keys', 'rotate'], { TESSERA_DATA_DIR: dataDir, ...storeEnv(node) });
    expect(rotated.code).toBe(0);
    const line = JSON.parse(rotated.stdout.trim().split('\n').at(-1)!) as Record<string, string>;
    expect(line).toMatchObject({ retiredKid: before.active[0], activeKid: before.next[0], nextKid: expect.any(String) });

    const listed = await runCli(['keys', 'list'], { TESSERA_DATA_DIR: dataDir, ...storeEnv(node) });
    expect(listed.code).toBe(0);
    const keys = (JSON.parse(listed.stdout.trim().split('\n').at(-1)!) as { keys: { kid: string; state: string }[] }).keys;
    expect(keys.find((k) => k.state === 'active')?.kid).toBe(before.next[0]);

    node = await startTestNode({ dataDir, env: { TESSERA_SIGNING_ALGORITHM: 'EdDSA' } });
    const after = await listWebKeys(node);
    expect(after.active).toEqual(before.next);
    expect(after.retired).toContain(before.active[0]);
    expect(await kidsOf()).toEqual(expect.arrayContaining([before.active[0], before.next[0], line.nextKid]));

    // TESSERA_SIGNING_ALGORITHM decides the algorithm of keys made from now on.
    const response = await rotate({});
    expect((await fetchJwks(node)).keys.find((k) => k.kid === response.body.nextKeyId)).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
  });

  it.each([
    [['keys'], 2],
    [['keys', 'rotate', '--bogus', 'x'], 2],
    [['keys', 'rotate', '--algorithm', 'HS256'], 2],
    [['keys', 'rotate', '--instance', '4242'], 1],
  ])('%j exits %d', async (args, code) => {
    expect((await runCli(args, { TESSERA_DATA_DIR: dataDir, ...storeEnv(node) })).code).toBe(code);
  });

  it('refuses a directory without a store or master key (exit 2), never creating one', async () => {
    const empty = join(dataDir, 'nothing-here');
    const result = await runCli(['keys', 'rotate'], { TESSERA_DATA_DIR: empty });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tessera init');
    expect(existsSync(empty)).toBe(false);
  });
});

describe('a key ring untouched since the restart (the cold import, issue 13)', () => {
  it.each(['ES256', 'EdDSA', 'RS256'] as const)('%s: the first token after a restart is signed by the active key and verifies against the JWKS', async (alg) => {
    const bot = await createMachineClient(node, `cold-${alg.toLowerCase()}`, 'JWT');
    for (let i = 0; i < 2; i++) expect((await rotate({ algorithm: `WEB_KEY_ALGORITHM_${alg.toUpperCase()}` })).status).toBe(200); // the new next key becomes active
    const activeKid = (await listWebKeys(node)).active[0];
    const tokenOf = async () => {
      const res = await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid profile' }, basic(bot.clientId, bot.secret));
      expect(res.status).toBe(200);
      return String(res.body.access_token);
    };
    const verify = async (token: string) => jwtVerify(token, createLocalJWKSet({ keys: (await fetchJwks(node)).keys }), { issuer: node.baseUrl, algorithms: [alg] });
    // Control: the same client's token while the ring is warm.
    await expect(verify(await tokenOf())).resolves.toMatchObject({ protectedHeader: { alg, kid: activeKid }, payload: { sub: bot.userId } });

    await node.stop();
    node = await startTestNode({ dataDir });
    const first = await tokenOf(); // nothing has read this ring since the start
    await expect(verify(first)).resolves.toMatchObject({ protectedHeader: { alg, kid: activeKid, typ: 'JWT' }, payload: { sub: bot.userId, client_id: bot.clientId } });
    // A flipped signature byte of that token is refused by the same check (negative beside the positive).
    const [header, payload, signature] = first.split('.') as [string, string, string];
    const flipped = Buffer.from(signature, 'base64url');
    flipped[3] = flipped[3]! ^ 0x01;
    await expect(verify(`${header}.${payload}.${flipped.toString('base64url')}`)).rejects.toThrow();
  });
});
