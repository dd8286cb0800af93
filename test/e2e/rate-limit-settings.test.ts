/**
 * PlatformRateLimitSettings against a started node (docs/operations/rate-limits.md, "Per
 * instance"): the node defaults resolved with the system as owner, an instance's own values
 * set over JSON and Connect (and reset) and read over the gRPC port, the value enforced for
 * that instance only (instance A at 3 API calls → 429 with Retry-After on the 4th while
 * instance B at the default is not limited; a client limit that a reset lifts), bad values and
 * the organization context as 400 naming the field, permissions, and the refusals counted in
 * /metrics.
 */
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformRateLimitSettings } from '../../src/gen/platform/settings/rate_limit/v3alpha/rate_limit_service_pb.js';
import { api, startTestNode, violatedFields, type TestNode } from './harness.js';
import { basic, createApp, createProject, postForm } from './oidc.fixture.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';
import { createSystemUserKey, systemApi, systemUsersEnv, type SystemUserKey } from './system-user.fixture.js';

const PATH = '/settings/v3alpha/rate_limits';
const SYSTEM = { type: 'OWNER_TYPE_SYSTEM' };

let node: TestNode;
let ops: SystemUserKey;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  ops = await createSystemUserKey('limits-ops', 'ES256');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_RATE_LIMIT_CLIENT: '50/1m', TESSERA_RATE_LIMIT_PASSWORD_IP: 'off' } });
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const hostOf = (domain: string) => ({ host: `${domain}:${node.httpPort}` });

async function metricsText(): Promise<string> {
  return (await fetch(`${node.baseUrl}/metrics`)).text();
}

function rejections(text: string, limit: string, instanceId: string): number {
  const line = text.split('\n').find((l) => l.startsWith('tessera_rate_limit_rejections_total{') && l.includes(`limit="${limit}"`) && l.includes(`instance="${instanceId}"`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('reading the limits', () => {
  it('resolves every limit: the node defaults (config) with the system as owner until the instance sets its own', async () => {
    const setup = await readSetup(node);
    const resolved = await call('GET', PATH);
    expect(resolved.status).toBe(200);
    expect(resolved.body.limits).toEqual({
      client: { value: '50/1m', owner: SYSTEM },
      clientAuthFailures: { value: '10/1m', owner: SYSTEM },
      loginPagesIp: { value: '600/1m', owner: SYSTEM },
      passwordIp: { value: 'off', owner: SYSTEM },
      passwordLoginName: { value: '20/1m', owner: SYSTEM },
      apiCaller: { value: '6000/1m', owner: SYSTEM },
    });
    expect(resolved.body.details).toMatchObject({ owner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } });
  });
});

describe('setting the limits', () => {
  it('sets and resets limits over JSON partially; a set that changes nothing records nothing', async () => {
    const set = await call('PATCH', PATH, { passwordLoginName: { set: '5/30s' }, loginPagesIp: { set: 'off' } });
    expect(set.status).toBe(200);
    const sequence = set.body.details.sequence;
    const after = (await call('GET', PATH)).body;
    expect(after.limits.passwordLoginName).toEqual({ value: '5/30s' });
    expect(after.limits.loginPagesIp).toEqual({ value: 'off' });
    expect(after.limits.client).toEqual({ value: '50/1m', owner: SYSTEM }); // untouched
    expect(after.details.sequence).toBe(sequence);
    expect((await call('PATCH', PATH, { passwordLoginName: { set: '5/30s' } })).body.details.sequence).toBe(sequence);
    expect((await call('PATCH', PATH, {})).body.details.sequence).toBe(sequence);

    const reset = await call('PATCH', PATH, { passwordLoginName: { reset: true }, loginPagesIp: { reset: true } });
    expect(reset.status).toBe(200);
    expect(BigInt(reset.body.details.sequence)).toBeGreaterThan(BigInt(sequence));
    const back = (await call('GET', PATH)).body.limits;
    expect(back.passwordLoginName).toEqual({ value: '20/1m', owner: SYSTEM });
    expect(back.loginPagesIp).toEqual({ value: '600/1m', owner: SYSTEM });
  });

  it('sets and reads the limits over Connect', async () => {
    const client = createClient(PlatformRateLimitSettings, createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' }));
    const headers = { authorization: `Bearer ${node.adminToken}` };
    await client.setRateLimitSettings({ limits: { clientAuthFailures: { property: { case: 'set', value: '7/2m' } } } }, { headers });
    const got = await client.getRateLimitSettings({}, { headers });
    expect(got.limits?.clientAuthFailures?.value).toBe('7/2m');
    expect(got.limits?.clientAuthFailures?.owner).toBeUndefined();
    expect(got.limits?.apiCaller?.value).toBe('6000/1m');
    const bad = await client.setRateLimitSettings({ limits: { client: { property: { case: 'set', value: '1/100ms' } } } }, { headers }).then(() => undefined, (e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectError);
    expect((bad as ConnectError).code).toBe(Code.InvalidArgument);
    await client.setRateLimitSettings({ limits: { clientAuthFailures: { property: { case: 'reset', value: true } } } }, { headers });
    expect((await client.getRateLimitSettings({}, { headers })).limits?.clientAuthFailures?.owner).toBeDefined();
    // and over the gRPC port
    const grpc = createClient(PlatformRateLimitSettings, createGrpcTransport({ baseUrl: node.grpcUrl }));
    expect((await grpc.getRateLimitSettings({}, { headers })).limits?.loginPagesIp?.value).toBe('600/1m');
  });

  it('refuses bad values with 400 naming the field, and an organization context', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ client: { set: '0/1m' } }, 'limits.client.set'],
      [{ apiCaller: { set: '10/500ms' } }, 'limits.apiCaller.set'],
      [{ passwordIp: { set: 'ten per minute' } }, 'limits.passwordIp.set'],
      [{ loginPagesIp: { set: '5/1m/2' } }, 'limits.loginPagesIp.set'],
      [{ clientAuthFailures: { reset: false } }, 'limits.clientAuthFailures.reset'],
      [{ passwordLoginName: {} }, 'limits.passwordLoginName'],
      [{ client: { set: 'x'.repeat(65) } }, 'limits.client.set'],
    ];
    for (const [body, field] of cases) {
      const refused = await call('PATCH', PATH, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(violatedFields(refused.body), JSON.stringify(body)).toEqual([field]);
    }
    const { orgId: defaultOrgId } = await readSetup(node);
    const inOrg = await call('PATCH', `${PATH}?ctx.orgId=${defaultOrgId}`, { client: { set: '5/1m' } });
    expect(inOrg.status).toBe(400);
    expect(violatedFields(inOrg.body)).toEqual(['ctx']);
    expect((await call('GET', `${PATH}?ctx.orgId=${defaultOrgId}`)).status).toBe(400);
    // positive control: nothing of the refused calls was stored
    expect((await call('GET', PATH)).body.limits.client).toEqual({ value: '50/1m', owner: SYSTEM });
  });

  it('lets an instance viewer read but not set the limits', async () => {
    const { instanceId } = await readSetup(node);
    const viewer = await seedMachineUser(node, { username: 'limits-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', PATH)).status).toBe(200);
    expect((await asViewer('PATCH', PATH, { client: { set: '5/1m' } })).status).toBe(403);
    expect((await call('PATCH', PATH, {})).status).toBe(200); // positive control: the owner may
  });
});

describe('enforcing an instance’s own limits', () => {
  it('refuses a client of the instance past the instance’s client limit; a reset to the node default lifts it', async () => {
    const projectId = await createProject(node, 'Instance limits');
    const app = await createApp(node, projectId, 'Limited client', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const introspect = () => postForm(node, '/oauth/v2/introspect', { token: 'not-a-token' }, basic(app.clientId, app.secret!));
    expect((await call('PATCH', PATH, { client: { set: '3/1m' } })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await introspect()).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await introspect();
    expect(refused.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('PATCH', PATH, { client: { reset: true } })).status).toBe(200);
    expect((await introspect()).status).toBe(200); // the node default (50/1m) counts on its own
  });

  it('limits the API callers of instance A at 3 calls (429 with Retry-After on the 4th) while instance B at the default is not limited', async () => {
    const { instanceId: instanceB } = await readSetup(node);
    const created = await systemApi(node, ops)('POST', '/resources/v3alpha/instances', { name: 'Limited', domain: 'limited.example', admin: { username: 'boss' } });
    expect(created.status).toBe(201);
    const instanceA: string = created.body.details.id;
    const asA = (method: string, path: string, body?: unknown) => api(node, created.body.adminToken)(method, path, body, hostOf('limited.example'));
    expect((await asA('PATCH', PATH, { apiCaller: { set: '3/1m' } })).status).toBe(200);
    const before = rejections(await metricsText(), 'apiCaller', instanceA);
    const statuses: number[] = [];
    let last = await asA('GET', PATH);
    statuses.push(last.status);
    for (let i = 0; i < 3; i += 1) {
      last = await asA('GET', PATH);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.body).toMatchObject({ code: 8 });
    // positive control: the same caller pattern on instance B (default 6000/1m) passes
    for (let i = 0; i < 6; i += 1) expect((await call('GET', PATH)).status).toBe(200);
    expect((await call('GET', PATH)).body.limits.apiCaller).toEqual({ value: '6000/1m', owner: SYSTEM });
    const text = await metricsText();
    expect(rejections(text, 'apiCaller', instanceA)).toBe(before + 1);
    expect(rejections(text, 'apiCaller', instanceB)).toBe(0);
  });
});
