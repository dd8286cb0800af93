/**
 * /metrics per route and method on every transport (issue #16 "Seeing what happens"): JSON/HTTP
 * by route template, Connect, gRPC-web and the gRPC port by RPC method (not `unmatched`), failed
 * RPCs by the status class of their code; tokens issued by grant and instance; login checks by
 * result and reason; store append latency; readiness; rate-limit refusals by limit and instance;
 * the change-feed lag histogram (observed in test/e2e/rate-limits-cluster.test.ts, where a
 * second node applies another's writes).
 */
import { createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformOrganizations } from '../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { firstInstanceId } from './access-log.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, openLogin, submitLoginName, submitPassword } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD } from './oidc-code-flow.fixture.js';
import { basic, createMachineClient, postForm } from './oidc.fixture.js';

let node: TestNode;
let orgId: string;

beforeAll(async () => {
  node = await startTestNode();
  orgId = (await api(node)('POST', '/resources/v3alpha/organizations', { name: 'Measured Org' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const scrape = async () => (await fetch(`${node.baseUrl}/metrics`)).text();
/** The value of one series, 0 when it is absent. */
function valueOf(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
const GET_ORG = `/${PlatformOrganizations.typeName}/GetOrganization`;

describe('requests per route and method', () => {
  it('counts JSON/HTTP by route template', async () => {
    expect((await api(node)('GET', `/resources/v3alpha/organizations/${orgId}`)).status).toBe(200);
    const metrics = await scrape();
    expect(valueOf(metrics, 'tessera_http_requests_total', 'route="/resources/v3alpha/organizations/{id}",method="GET",transport="http",status="2xx"')).toBeGreaterThanOrEqual(1);
    expect(metrics).not.toContain(orgId);
  });

  it.each([
    ['connect', () => createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
    ['grpc-web', () => createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
    ['grpc', () => createGrpcTransport({ baseUrl: node.grpcUrl })],
  ] as [string, () => Transport][])('counts %s calls by RPC method, failures by the class of their code', async (transport, make) => {
    const client = createClient(PlatformOrganizations, make());
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    await client.getOrganization({ id: orgId }, auth);
    await client.getOrganization({ id: '4242' }, auth).catch(() => undefined);
    const metrics = await scrape();
    expect(valueOf(metrics, 'tessera_http_requests_total', `route="${GET_ORG}",method="POST",transport="${transport}",status="2xx"`)).toBe(1);
    expect(valueOf(metrics, 'tessera_http_requests_total', `route="${GET_ORG}",method="POST",transport="${transport}",status="4xx"`)).toBe(1);
    expect(metrics).toContain(`tessera_http_request_duration_seconds_count{route="${GET_ORG}",method="POST",transport="${transport}"} 2`);
  });

  it('keeps client-chosen methods out of the labels', async () => {
    await fetch(`${node.baseUrl}/no/such/route`, { method: 'BREW' }).catch(() => undefined);
    expect(await scrape()).not.toContain('method="BREW"');
  });
});

describe('tokens, logins, store, readiness', () => {
  it('counts a token issued by grant and instance', async () => {
    const labels = `grant="client_credentials",instance="${firstInstanceId(node)}"`;
    const before = valueOf(await scrape(), 'tessera_tokens_issued_total', labels);
    const bot = await createMachineClient(node, 'counted-bot', 'BEARER');
    const issued = await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'profile' }, basic(bot.clientId, bot.secret));
    expect(issued.status).toBe(200);
    const refused = await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'profile' }, basic(bot.clientId, 'wrong'));
    expect(refused.status).toBe(401);
    expect(valueOf(await scrape(), 'tessera_tokens_issued_total', labels)).toBe(before + 1);
  });

  it('counts a failed password login by its reason and a good one as success', async () => {
    const redirectUri = 'http://127.0.0.1:1/callback';
    const tenant = await createFlowTenant(node, redirectUri);
    await createHuman(node, 'metered');
    const wrong = await passwordLogin(tenant.clientId, redirectUri, 'metered', 'not-the-password');
    expect(wrong).toBe(400); // the password step again, with its message
    const metrics = await scrape();
    expect(valueOf(metrics, 'tessera_logins_total', 'method="password",result="failure",reason="passwordInvalid"')).toBe(1);
    expect(valueOf(metrics, 'tessera_logins_total', 'method="password",result="success",reason=""')).toBe(0);
    const right = await passwordLogin(tenant.clientId, redirectUri, 'metered', PASSWORD);
    expect(right).toBeGreaterThanOrEqual(300); // on to the app
    expect(valueOf(await scrape(), 'tessera_logins_total', 'method="password",result="success",reason=""')).toBe(1);
  });

  it('counts rate-limit refusals by limit and instance', async () => {
    const instance = firstInstanceId(node);
    const before = await scrape();
    const bot = await createMachineClient(node, 'limited-bot', 'BEARER');
    expect((await api(node)('PATCH', '/settings/v3alpha/rate_limits', { client: { set: '1/1m' } })).status).toBe(200);
    try {
      const token = () => postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'profile' }, basic(bot.clientId, bot.secret));
      expect((await token()).status).toBe(200);
      expect((await token()).status).toBe(429);
      const after = await scrape();
      expect(valueOf(after, 'tessera_rate_limit_rejections_total', `limit="client",instance="${instance}"`)).toBe(valueOf(before, 'tessera_rate_limit_rejections_total', `limit="client",instance="${instance}"`) + 1);
      // positive control: a limit that refused nothing has no refusals counted
      expect(valueOf(after, 'tessera_rate_limit_rejections_total', `limit="apiCaller",instance="${instance}"`)).toBe(0);
    } finally {
      expect((await api(node)('PATCH', '/settings/v3alpha/rate_limits', { client: { reset: true } })).status).toBe(200);
    }
  });

  it('exports the change-feed lag histogram (nothing observed on one node: it never applies another node\'s change)', async () => {
    expect(await scrape()).toMatch(/^tessera_change_feed_lag_seconds_count 0$/m);
  });

  it('measures store appends and reports readiness', async () => {
    const metrics = await scrape();
    expect(valueOf(metrics, 'tessera_store_append_duration_seconds_count', 'outcome="ok"')).toBeGreaterThan(0);
    expect(metrics).toMatch(/^tessera_ready 1$/m);
  });
});

/** The login UI driven with fetch as one browser: authorize, login name, password; returns the password step's status. */
async function passwordLogin(clientId: string, redirectUri: string, loginName: string, password: string): Promise<number> {
  const steps = await openLogin(node, codeRequest(node, clientId, redirectUri, { prompt: 'login' }).url);
  const passwordPage = await submitLoginName(node, steps, loginName);
  expect(passwordPage.text).toContain('name="password"');
  return (await submitPassword(node, steps, password)).status;
}
