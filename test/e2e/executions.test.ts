/**
 * The execution runtime against a started node and real targets on 127.0.0.1: request and
 * response conditions around API calls (webhook with a verified signature, request_response
 * rewriting a request and a response, timeout, failures with and without interrupt_on_error,
 * forwarded errors, async), a call over gRPC, and event conditions — delivered at least once
 * across a restart of Tessera on the same data directory.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/executions/signature.js';
import { PlatformOrganizations } from '../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup } from './seed.fixture.js';
import { startTargetServer, type RecordedCall, type TargetServer } from './targets.fixture.js';

const T = '/resources/v3alpha/targets';
const E = '/resources/v3alpha/executions';
const O = '/resources/v3alpha/organizations';
const ORGS = 'platform.resources.org.v3alpha.PlatformOrganizations';
const CREATE_ORG = `/${ORGS}/CreateOrganization`;
const GET_ORG = `/${ORGS}/GetOrganization`;
const FEATURES = { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' };
/** Longer than any test timeout: a call that waited for such a target would never finish its test. */
const HELD_LONGER_THAN_THE_TEST = 300_000;

let node: TestNode;
let call: ReturnType<typeof api>;
let server: TargetServer;
let instanceId: string;
const keys = new Map<string, string>();

beforeAll(async () => {
  server = await startTargetServer();
  node = await startTestNode({ env: FEATURES });
  call = api(node);
  instanceId = (await readSetup(node)).instanceId;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
  await server.close();
});

let targetCount = 0;
/** Creates a target for a path of the target server; returns its id (its key is kept by path). */
async function target(path: string, options: { type?: 'restWebhook' | 'restRequestResponse'; timeout?: string; mode?: 'isAsync' | 'interruptOnError' } = {}) {
  targetCount += 1;
  const created = await call('POST', T, {
    name: `${path}-${targetCount}`,
    [options.type ?? 'restWebhook']: { url: server.url(path) },
    timeout: options.timeout ?? '5s',
    ...(options.mode === undefined ? {} : { [options.mode]: true }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  keys.set(path, created.body.signingKey);
  return created.body.details.id as string;
}

async function execution(condition: unknown, targets: string[]) {
  const put = await call('POST', E, { condition, targets });
  expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
}

async function clear(...ids: string[]) {
  for (const id of ids) await call('DELETE', `${E}/${encodeURIComponent(id)}`);
}

function expectSigned(recorded: RecordedCall, path: string) {
  const header = String(recorded.headers['platform-signature']);
  expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(verifySignature(header, recorded.body, keys.get(path)!, Math.floor(Date.now() / 1000))).toBe(true);
  expect(verifySignature(header, recorded.body, 'not-the-key', Math.floor(Date.now() / 1000))).toBe(false);
}

describe('request and response conditions', () => {
  it('calls a webhook before and after the handler with signed payloads', async () => {
    await execution({ request: { method: CREATE_ORG } }, [await target('/hook-request')]);
    await execution({ response: { method: CREATE_ORG } }, [await target('/hook-response')]);
    const created = await call('POST', O, { name: 'Hooked Org' }, { 'user-agent': 'e2e-agent', cookie: 'secret=1' });
    expect(created.status).toBe(201);

    const [before] = server.callsTo('/hook-request');
    expect(before?.json).toEqual({
      fullMethod: CREATE_ORG,
      instanceID: instanceId,
      orgID: expect.any(String),
      projectID: '',
      userID: expect.any(String),
      request: { organization: { name: 'Hooked Org' } },
      headers: { 'User-Agent': ['e2e-agent'] },
    });
    expect(before?.headers['content-type']).toBe('application/json');
    expectSigned(before!, '/hook-request');
    const [after] = server.callsTo('/hook-response');
    expect(after?.json.response.details.id).toBe(created.body.details.id);
    expect(after?.json.request).toEqual({ organization: { name: 'Hooked Org' } });
    expectSigned(after!, '/hook-response');
    await clear(`request${CREATE_ORG}`, `response${CREATE_ORG}`);
  });

  it('lets a request_response target rewrite the request (re-validated) and the response', async () => {
    server.on('/rewrite', (c) => ({ body: { organization: { name: c.json.request.organization.name === 'blank' ? '' : `${c.json.request.organization.name} (checked)` } } }));
    server.on('/mask', (c) => ({ body: { ...c.json.response, organization: { ...c.json.response.organization, primaryDomain: 'masked.example' } } }));
    await execution({ request: { method: CREATE_ORG } }, [await target('/rewrite', { type: 'restRequestResponse' })]);
    await execution({ response: { method: GET_ORG } }, [await target('/mask', { type: 'restRequestResponse' })]);

    const created = await call('POST', O, { name: 'Rewritten' });
    expect(created.status).toBe(201);
    const got = await call('GET', `${O}/${created.body.details.id}`);
    expect(got.body.organization.organization.name).toBe('Rewritten (checked)');
    expect(got.body.organization.primaryDomain).toBe('masked.example');

    const invalid = await call('POST', O, { name: 'blank' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details[0].id).toBe('request.invalid');
    await clear(`request${CREATE_ORG}`, `response${GET_ORG}`);
  });

  it('cancels a slow target at its timeout: an error with interrupt_on_error, ignored otherwise', async () => {
    // The target answers only after the test's own timeout: a node that waited for it would fail the test.
    server.on('/slow', () => ({ delayMs: HELD_LONGER_THAN_THE_TEST }));
    await execution({ request: { method: CREATE_ORG } }, [await target('/slow', { timeout: '0.3s', mode: 'interruptOnError' })]);
    const failed = await call('POST', O, { name: 'Too Slow' });
    expect(failed.status).toBe(500);
    expect(failed.body.details[0].id).toBe('execution.timeout');

    await execution({ request: { method: CREATE_ORG } }, [await target('/slow', { timeout: '0.3s' })]);
    expect((await call('POST', O, { name: 'Slow But Fine' })).status).toBe(201);
    await clear(`request${CREATE_ORG}`);
  });

  it('fails the call for a failing interrupt_on_error target, logs and goes on otherwise', async () => {
    server.on('/failing', () => ({ status: 500, body: 'boom' }));
    server.on('/forbid', () => ({ body: { forwardedStatusCode: 403, forwardedErrorMessage: 'not on a Sunday' } }));
    server.on('/after', () => ({}));
    const failing = await target('/failing');
    const after = await target('/after');
    await execution({ request: { service: ORGS } }, [failing, after]);
    expect((await call('POST', O, { name: 'Failing Ignored' })).status).toBe(201);
    expect(server.callsTo('/after')).toHaveLength(1); // the next target still ran

    await execution({ request: { service: ORGS } }, [await target('/failing', { mode: 'interruptOnError' }), after]);
    const failed = await call('POST', O, { name: 'Failing Fatal' });
    expect(failed.status).toBe(400);
    expect(failed.body).toMatchObject({ code: 9, details: [{ id: 'execution.failed' }] });
    expect(server.callsTo('/after')).toHaveLength(1); // later targets are not called

    await execution({ request: { service: ORGS } }, [await target('/forbid', { mode: 'interruptOnError' })]);
    const forbidden = await call('GET', `${O}/_instance_default`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.details[0].id).toBe('execution.forwarded_error');
    expect(forbidden.body.message).toContain('not on a Sunday');
    await clear(`request/${ORGS}`);
  });

  it('fires async targets and forgets them', async () => {
    // The target answers only after the test's own timeout: the call returning at all shows it was not awaited.
    server.on('/async', () => ({ status: 500, delayMs: HELD_LONGER_THAN_THE_TEST }));
    await execution({ request: { method: CREATE_ORG } }, [await target('/async', { mode: 'isAsync' })]);
    expect((await call('POST', O, { name: 'Async Org' })).status).toBe(201);
    await server.waitForCalls('/async', 1);
    await clear(`request${CREATE_ORG}`);
  });

  it('runs for calls over gRPC too', async () => {
    await execution({ request: { method: GET_ORG } }, [await target('/grpc-hook')]);
    const client = createClient(PlatformOrganizations, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const setup = await readSetup(node);
    await client.getOrganization({ id: setup.orgId }, { headers: { authorization: `Bearer ${node.adminToken}` } });
    const [recorded] = await server.waitForCalls('/grpc-hook', 1);
    expect(recorded?.json).toMatchObject({ fullMethod: GET_ORG, request: { id: setup.orgId } });
    expectSigned(recorded!, '/grpc-hook');
    await clear(`request${GET_ORG}`);
  });
});

describe('event conditions', () => {
  it('delivers matching events with the event payload', async () => {
    await execution({ event: { group: 'org' } }, [await target('/events')]);
    const created = await call('POST', O, { name: 'Evented Org' });
    const calls = await server.waitForCalls('/events', 1);
    const added = calls.map((c) => c.json).find((j) => j.aggregateID === created.body.details.id);
    expect(added).toEqual({
      aggregateID: created.body.details.id,
      aggregateType: 'org',
      resourceOwner: created.body.details.id,
      instanceID: instanceId,
      version: 'v1',
      sequence: Number(created.body.details.sequence),
      event_type: 'org.added',
      created_at: expect.any(String),
      userID: expect.any(String),
      event_payload: expect.objectContaining({ name: 'Evented Org' }),
    });
    // The same instant: the API's Timestamp JSON drops a zero fraction (…19Z), the event keeps it (…19.000Z).
    expect(Date.parse(added.created_at)).toBe(Date.parse(created.body.details.changeDate));
    expectSigned(calls[0]!, '/events');
    await clear('event/org.*');
  });
});

describe('event delivery across a restart', () => {
  it('loses nothing: undelivered events are sent after Tessera restarts on the same data', async () => {
    const restartServer = await startTargetServer();
    let accept = false;
    restartServer.on('/restart', () => ({ status: accept ? 200 : 503 }));
    const first = await startTestNode({ env: FEATURES });
    const first_ = api(first);
    const created = await first_('POST', T, { name: 'restart', restWebhook: { url: restartServer.url('/restart') }, timeout: '2s' });
    expect((await first_('POST', E, { condition: { event: { event: 'org.added' } }, targets: [created.body.details.id] })).status).toBe(201);
    const orgIds: string[] = [];
    for (const name of ['Restart One', 'Restart Two', 'Restart Three']) orgIds.push((await first_('POST', O, { name })).body.details.id);
    await restartServer.waitForCalls('/restart', 1); // the dispatcher is retrying the first event
    expect(await first.stop()).toBe(0);

    accept = true;
    const switchedAt = Date.now(); // calls from here on come from the restarted node and succeed
    const second = await startTestNode({ dataDir: first.dataDir, env: FEATURES });
    try {
      const deadline = Date.now() + 20_000;
      const delivered = () => new Set(restartServer.calls.filter((c) => c.at >= switchedAt).map((c) => c.json.aggregateID));
      while (!orgIds.every((id) => delivered().has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(orgIds.filter((id) => !delivered().has(id))).toEqual([]);
      const metrics = await fetch(`${second.baseUrl}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/tessera_execution_event_lag \d+/);
    } finally {
      await second.stop();
      second.cleanup();
      await restartServer.close();
    }
  }, 90_000); // two node starts and the redelivery: about 25 s on a loaded machine with the node on PostgreSQL
});
