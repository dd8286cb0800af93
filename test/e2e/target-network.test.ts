/**
 * The default network policy of execution targets, end to end: a node started without
 * TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS refuses to call a target on 127.0.0.1 — the
 * interrupting request execution fails the API call with a clear 400, and the target never
 * sees a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { startTargetServer, type TargetServer } from './targets.fixture.js';

const CREATE_ORG = '/platform.resources.org.v3alpha.PlatformOrganizations/CreateOrganization';

let node: TestNode;
let server: TargetServer;

beforeAll(async () => {
  server = await startTargetServer();
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api', TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
  await server.close();
});

describe('execution targets on a private address', () => {
  it('are refused by default: the interrupting execution fails the call, nothing is sent', async () => {
    const call = api(node);
    const created = await call('POST', '/resources/v3alpha/targets', { name: 'loopback', restWebhook: { url: server.url('/private') }, timeout: '5s', interruptOnError: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const put = await call('POST', '/resources/v3alpha/executions', { condition: { request: { method: CREATE_ORG } }, targets: [created.body.details.id] });
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);

    const refused = await call('POST', '/resources/v3alpha/organizations', { name: 'Never Created' });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0]).toMatchObject({ id: 'execution.target_address_refused' });
    expect(server.callsTo('/private')).toEqual([]);
  });
});
