/**
 * Rate limits of a started node (docs/operations/rate-limits.md), each set low through its
 * TESSERA_RATE_LIMIT_* key so a handful of requests crosses it: failed client authentications
 * at the token endpoint, requests per client, calls per API caller (JSON, Connect and the gRPC
 * port), requests per IP to the login pages and password checks per login name. Every refusal is
 * a 429 with Retry-After; every limit has a positive control (another key still passes).
 */
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformProjects } from '../../src/gen/platform/resources/project/v3alpha/project_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { basic, createApp, createProject, postForm, type AppClient } from './oidc.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';

const LIMITS = {
  TESSERA_RATE_LIMIT_CLIENT_AUTH_FAILURES: '3/1m',
  TESSERA_RATE_LIMIT_CLIENT: '8/1m',
  TESSERA_RATE_LIMIT_API_CALLER: '40/1m',
  TESSERA_RATE_LIMIT_LOGIN_PAGES_IP: '1000/1m',
  TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME: '3/1m',
};

let node: TestNode;
let projectId: string;

beforeAll(async () => {
  node = await startTestNode({ env: LIMITS });
  projectId = await createProject(node, 'Limits');
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function apiClient(name: string): Promise<AppClient> {
  return createApp(node, projectId, name, { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
}

function introspect(client: AppClient, secret = client.secret!) {
  return postForm(node, '/oauth/v2/introspect', { token: 'not-a-token' }, basic(client.clientId, secret));
}

describe('client limits at the OAuth endpoints', () => {
  it('refuses a client with 429 after too many failed authentications, the right secret included', async () => {
    const target = await apiClient('Guessed');
    const other = await apiClient('Bystander');
    expect((await introspect(target)).status).toBe(200); // positive control: the right secret works
    for (let i = 0; i < 3; i += 1) expect((await introspect(target, 'wrong')).status).toBe(401);
    const refused = await introspect(target, 'wrong');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const right = await introspect(target);
    expect(right.status).toBe(429); // blocked for the window, whatever the secret
    expect((await introspect(other)).status).toBe(200); // another client of the instance is unaffected
  });

  it('limits the requests of one client per window', async () => {
    const busy = await apiClient('Busy');
    const quiet = await apiClient('Quiet');
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await introspect(busy)).status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(statuses[8]).toBe(429);
    expect((await introspect(quiet)).status).toBe(200);
  });
});

describe('API caller limit', () => {
  it('answers 429 with Retry-After over JSON, Connect and the gRPC port once a caller used its calls', async () => {
    const call = api(node);
    const created = await call('POST', '/resources/v3alpha/users', { machine: { username: 'limited-caller', name: 'Limited' } });
    expect(created.status).toBe(201);
    const userId: string = created.body.details.id;
    expect((await call('POST', '/resources/v3alpha/memberships', { instance: true, userId, roles: ['IAM_OWNER_VIEWER'] })).status).toBe(201);
    const pat = await call('POST', `/resources/v3alpha/users/${userId}/tokens`, {});
    expect(pat.status).toBe(201);
    const limited = api(node, pat.body.token);
    let json = await limited('GET', `/resources/v3alpha/projects/${projectId}`);
    let used = 1;
    while (json.status === 200 && used < 60) {
      json = await limited('GET', `/resources/v3alpha/projects/${projectId}`);
      used += 1;
    }
    expect(used).toBeLessThanOrEqual(41);
    expect(json.status).toBe(429);
    expect(Number(json.headers['retry-after'])).toBeGreaterThan(0);
    const headers = { authorization: `Bearer ${pat.body.token}` };
    for (const transport of [createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' }), createGrpcTransport({ baseUrl: node.grpcUrl })]) {
      const error = await createClient(PlatformProjects, transport).getProject({ id: projectId }, { headers }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code).toBe(Code.ResourceExhausted);
    }
    // positive control: the admin, another caller, is not limited
    expect((await call('GET', `/resources/v3alpha/projects/${projectId}`)).status).toBe(200);
  });
});

describe('password checks per login name', () => {
  let tenant: FlowTenant;
  beforeAll(async () => {
    tenant = await createFlowTenant(node, 'http://127.0.0.1:9/cb');
    await createHuman(node, 'limit-alice');
    await createHuman(node, 'limit-bob');
  });

  /** A browser's cookie jar, reduced to what the login pages need. */
  function jar() {
    const cookies = new Map<string, string>();
    return {
      header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      take(response: Response) {
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
      },
    };
  }

  /** Starts an auth request and submits the login name; returns a function submitting a password. */
  async function passwordStep(loginName: string): Promise<(password: string) => Promise<Response>> {
    const cookies = jar();
    const get = async (url: string) => {
      const response = await fetch(new URL(url, node.baseUrl), { headers: { cookie: cookies.header() }, redirect: 'manual' });
      cookies.take(response);
      return response;
    };
    const authorize = await get(`/oauth/v2/authorize?${new URLSearchParams({ client_id: tenant.clientId, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`);
    const location = authorize.headers.get('location')!;
    const authRequest = new URL(location, node.baseUrl).searchParams.get('authRequest')!;
    const post = async (form: Record<string, string>) => {
      const page = await (await get(location)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const response = await fetch(`${node.baseUrl}/ui/login/login`, {
        method: 'POST',
        body: new URLSearchParams({ authRequest, csrf, ...form }),
        headers: { cookie: cookies.header(), origin: node.baseUrl },
        redirect: 'manual',
      });
      cookies.take(response);
      return response;
    };
    await post({ action: 'loginname', loginName });
    return (password) => post({ action: 'password', password });
  }

  it('shows the password page with 429 past the limit, for that login name only', async () => {
    const submit = await passwordStep('limit-alice');
    for (let i = 0; i < 3; i += 1) expect((await submit('wrong-password')).status).toBe(400); // the password page with its error
    const refused = await submit(PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many attempts');
    const other = await passwordStep('limit-bob');
    expect((await other(PASSWORD)).status).toBe(303); // positive control: another account logs in (redirect on)
  });

  it('counts unknown login names each on their own, like accounts (hidden unknown users, #12 item 4)', async () => {
    // Four different unknown names, one check each, under a limit of 3 per login name.
    for (const name of ['limit-nobody-1', 'limit-nobody-2', 'limit-nobody-3', 'limit-nobody-4']) {
      expect((await (await passwordStep(name))('wrong-password')).status, name).toBe(400);
    }
    const same = await passwordStep('limit-nobody-5');
    for (let i = 0; i < 3; i += 1) expect((await same('wrong-password')).status).toBe(400);
    expect((await same('wrong-password')).status, 'one unknown name past the limit').toBe(429);
  });
});

describe('login pages per IP address', () => {
  let strict: TestNode;
  beforeAll(async () => {
    strict = await startTestNode({ env: { TESSERA_RATE_LIMIT_LOGIN_PAGES_IP: '3/1m' } });
  });
  afterAll(async () => {
    await strict.stop();
    strict.cleanup();
  });

  it('answers a page with 429 once an address made too many requests, and still serves other endpoints', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await fetch(`${strict.baseUrl}/ui/login/login?authRequest=unknown`)).status);
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses[3]).toBe(429);
    const refused = await fetch(`${strict.baseUrl}/oauth/v2/authorize?client_id=x`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('Too many attempts');
    expect((await fetch(`${strict.baseUrl}/.well-known/openid-configuration`)).status).toBe(200); // not a login page
  });

  it('is off with TESSERA_RATE_LIMITS=false', async () => {
    const open = await startTestNode({ env: { TESSERA_RATE_LIMITS: 'false', TESSERA_RATE_LIMIT_LOGIN_PAGES_IP: '1/1m' } });
    try {
      for (let i = 0; i < 3; i += 1) expect((await fetch(`${open.baseUrl}/ui/login/login?authRequest=unknown`)).status).toBe(404);
    } finally {
      await open.stop();
      open.cleanup();
    }
  });
});
