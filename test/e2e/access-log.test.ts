/**
 * The access log (issue #16 "Seeing what happens"): one JSON line per request on every transport
 * — JSON/HTTP, Connect, gRPC-web on the main port, gRPC on its own — with the route template or
 * RPC method (never the raw path with ids), status, duration, instance, client/user and the
 * request id the reply carries in X-Request-Id; an acceptable incoming X-Request-Id is kept,
 * another replaced; a valid W3C traceparent is continued with a new span id, an invalid one ignored.
 */
import { ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformOrganizations } from '../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { accessLine, firstInstanceId } from './access-log.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { basic, createMachineClient, postForm } from './oidc.fixture.js';

let node: TestNode;
let orgId: string;
let instanceId: string;
let adminUserId: string;

const GENERATED_ID = /^[0-9a-f]{8}-[0-9a-z]+$/;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_ACCESS_LOG: 'all' } });
  instanceId = firstInstanceId(node);
  orgId = (await api(node)('POST', '/resources/v3alpha/organizations', { name: 'Logged Org' })).body.details.id;
  const created = await api(node)('POST', '/resources/v3alpha/organizations', { name: 'Who Am I' });
  adminUserId = String((await accessLine(node, String(created.headers['x-request-id']))).userId);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('JSON/HTTP', () => {
  it('logs one line with the route template, status, duration, instance and user under the X-Request-Id of the reply', async () => {
    const res = await api(node)('GET', `/resources/v3alpha/organizations/${orgId}`);
    expect(res.status).toBe(200);
    const requestId = String(res.headers['x-request-id']);
    expect(requestId).toMatch(GENERATED_ID);
    const line = await accessLine(node, requestId);
    expect(line).toMatchObject({ level: 'info', transport: 'http', method: 'GET', route: '/resources/v3alpha/organizations/{id}', status: 200, instanceId, userId: adminUserId });
    expect(typeof line.durationMs).toBe('number');
    expect(JSON.stringify(line)).not.toContain(orgId);
    expect(node.logs.filter((entry) => entry.msg === 'request' && entry.requestId === requestId)).toHaveLength(1);
  });

  it('logs failures too, with their status', async () => {
    const res = await api(node, '')('GET', `/resources/v3alpha/organizations/${orgId}`);
    expect(res.status).toBe(401);
    expect(await accessLine(node, String(res.headers['x-request-id']))).toMatchObject({ route: '/resources/v3alpha/organizations/{id}', status: 401, instanceId });
  });

  it('keeps an acceptable incoming X-Request-Id and replaces an over-long or odd one', async () => {
    const kept = await api(node)('GET', `/resources/v3alpha/organizations/${orgId}`, undefined, { 'x-request-id': 'client-42.a:b/c' });
    expect(kept.headers['x-request-id']).toBe('client-42.a:b/c');
    expect((await accessLine(node, 'client-42.a:b/c')).status).toBe(200);
    for (const incoming of ['x'.repeat(129), 'has space', 'semi;colon', 'quote"d']) {
      const replaced = await api(node)('GET', '/healthz', undefined, { 'x-request-id': incoming });
      expect(replaced.headers['x-request-id']).toMatch(GENERATED_ID);
      expect((await accessLine(node, String(replaced.headers['x-request-id']))).route).toBe('/healthz');
    }
  });

  it('continues a valid traceparent with the same trace id and a new span id, and ignores an invalid one', async () => {
    const traced = await api(node)('GET', '/healthz', undefined, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    const [version, traceId, spanId, flags] = String(traced.headers.traceparent).split('-');
    expect([version, traceId, flags]).toEqual(['00', TRACE_ID, '01']);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(spanId).not.toBe(PARENT_ID);
    expect(await accessLine(node, String(traced.headers['x-request-id']))).toMatchObject({ traceId: TRACE_ID, spanId, parentSpanId: PARENT_ID });

    for (const invalid of [`00-${'0'.repeat(32)}-${PARENT_ID}-01`, `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`, `ff-${TRACE_ID}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID}-01-extra`]) {
      const ignored = await api(node)('GET', '/healthz', undefined, { traceparent: invalid });
      expect(ignored.status).toBe(200);
      expect(ignored.headers.traceparent).toBeUndefined();
      expect((await accessLine(node, String(ignored.headers['x-request-id']))).traceId).toBeUndefined();
    }
  });

  it('names the OAuth client and instance of a token request', async () => {
    const bot = await createMachineClient(node, 'logged-bot', 'BEARER');
    const res = await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'profile' }, basic(bot.clientId, bot.secret));
    expect(res.status).toBe(200);
    expect(await accessLine(node, res.headers.get('x-request-id') ?? '')).toMatchObject({ route: '/oauth/v2/token', method: 'POST', status: 200, instanceId, clientId: bot.clientId });
  });
});

describe.each([
  ['connect', 200, () => createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc-web', 200, () => createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc', 200, () => createGrpcTransport({ baseUrl: node.grpcUrl })],
] as [string, number, () => Transport][])('%s', (transport, status, make) => {
  const rpc = `/${PlatformOrganizations.typeName}/GetOrganization`;

  it('logs the call with its RPC method name, code and the request id of the reply headers', async () => {
    let replied: string | null = null;
    const client = createClient(PlatformOrganizations, make());
    await client.getOrganization({ id: orgId }, { headers: { authorization: `Bearer ${node.adminToken}` }, onHeader: (h) => (replied = h.get('x-request-id')) });
    expect(replied).toMatch(GENERATED_ID);
    expect(await accessLine(node, replied ?? '')).toMatchObject({ transport, method: 'POST', route: rpc, status, rpcCode: 0, instanceId, userId: adminUserId });
  });

  it('echoes an incoming x-request-id and logs a failed call with its code', async () => {
    const client = createClient(PlatformOrganizations, make());
    const requestId = `${transport}-missing-org`;
    const failed = await client.getOrganization({ id: '4242' }, { headers: { authorization: `Bearer ${node.adminToken}`, 'x-request-id': requestId } }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ConnectError);
    expect((failed as ConnectError).metadata.get('x-request-id')).toBe(requestId);
    expect(await accessLine(node, requestId)).toMatchObject({ transport, route: rpc, rpcCode: 5 });
  });

  it('continues a traceparent', async () => {
    let replied: string | null = null;
    const client = createClient(PlatformOrganizations, make());
    await client.getOrganization({ id: orgId }, { headers: { authorization: `Bearer ${node.adminToken}`, traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` }, onHeader: (h) => (replied = h.get('traceparent')) });
    const parts = String(replied).split('-');
    expect([parts[0], parts[1], parts[3]]).toEqual(['00', TRACE_ID, '00']);
    expect(parts[2]).not.toBe(PARENT_ID);
  });
});

describe('TESSERA_ACCESS_LOG=errors', () => {
  let quiet: TestNode;
  beforeAll(async () => {
    quiet = await startTestNode({ env: { TESSERA_ACCESS_LOG: 'errors' } });
  });
  afterAll(async () => {
    await quiet.stop();
    quiet.cleanup();
  });

  it('writes a 404 and leaves out a 200', async () => {
    const ok = await api(quiet)('GET', '/healthz');
    const missing = await api(quiet)('GET', '/no/such/route');
    expect(missing.status).toBe(404);
    expect(await accessLine(quiet, String(missing.headers['x-request-id']))).toMatchObject({ status: 404, route: 'unmatched' });
    expect(quiet.logs.some((entry) => entry.msg === 'request' && entry.requestId === ok.headers['x-request-id'])).toBe(false);
  });
});
