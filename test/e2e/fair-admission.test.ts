/**
 * Fair admission on a started node, forced on through its configuration
 * (TESSERA_FAIR_MAX_IN_FLIGHT=1, TESSERA_FAIR_QUEUE_CAPACITY=2, TESSERA_FAIR_LAG_MS=0): while a request of the first
 * instance (A) is held in flight (by an execution target the test answers when it chooses), A's
 * next requests wait in A's queue, A's overflow is answered 503 at once, and a request of a
 * second instance (B) runs in the first turn after the held one — before the rest of A's backlog.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';
import { startTargetServer, type TargetServer } from './targets.fixture.js';

const ORGS = '/resources/v3alpha/organizations';
const CREATE_ORG = '/platform.resources.org.v3alpha.PlatformOrganizations/CreateOrganization';

let node: TestNode;
let targets: TargetServer;

beforeAll(async () => {
  targets = await startTargetServer();
  const ops = await createSystemUserKey('ops', 'ES256');
  node = await startTestNode({
    env: {
      TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]),
      TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api',
      TESSERA_FAIR_MAX_IN_FLIGHT: '1',
      TESSERA_FAIR_QUEUE_CAPACITY: '2',
      TESSERA_FAIR_LAG_MS: '0', // the loop always counted as behind: the scheduler forced on
    },
  });
  const created = await systemApi(node, ops)('POST', '/resources/v3alpha/instances', { name: 'Beta', domain: 'beta.example' });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
  await targets.close();
});

/** A gauge of the node's /metrics (which never waits for admission). */
async function gauge(name: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${node.httpPort}/metrics`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

async function untilGauge(name: string, value: number): Promise<void> {
  while ((await gauge(name)) !== value) await new Promise((resolve) => setImmediate(resolve));
}

describe('fair admission (TESSERA_FAIR_MAX_IN_FLIGHT=1)', () => {
  it("runs instance B's request before instance A's backlog and refuses A's overflow with 503", async () => {
    const call = api(node);
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    targets.on('/held', () => ({ hold }));
    const target = await call('POST', '/resources/v3alpha/targets', { name: 'held', restWebhook: { url: targets.url('/held') }, timeout: '60s' });
    expect(target.status).toBe(201);
    expect((await call('POST', '/resources/v3alpha/executions', { condition: { request: { method: CREATE_ORG } }, targets: [target.body.details.id] })).status).toBeLessThan(300);

    const completed: string[] = [];
    const track = <T>(name: string, answer: Promise<T>) => answer.then((value) => (completed.push(name), value));
    const held = track('a1', call('POST', ORGS, { name: 'Held' })); // in flight until the target answers
    await targets.waitForCalls('/held', 1);
    const a2 = track('a2', call('GET', `${ORGS}/_instance_default`));
    const a3 = track('a3', call('GET', `${ORGS}/_instance_default`));
    await untilGauge('tessera_http_queued', 2);
    const overflow = await call('GET', `${ORGS}/_instance_default`); // A's queue is full: refused at once
    expect(overflow.status).toBe(503);
    expect(overflow.headers['retry-after']).toBe('1');
    expect(overflow.body).toMatchObject({ code: 14, details: [{ id: 'http.queue_full' }] });
    const b = track('b', api(node, '')('GET', '/.well-known/openid-configuration', undefined, { host: `beta.example:${node.httpPort}` }));
    await untilGauge('tessera_http_queued', 3);
    release();

    expect((await held).status).toBe(201);
    const answerB = await b;
    expect(answerB.status, JSON.stringify(answerB.body)).toBe(200); // B is served, not refused
    expect(answerB.body.issuer).toBe(`http://beta.example:${node.httpPort}`);
    expect((await a2).status).toBe(200);
    expect((await a3).status).toBe(200);
    // One at a time, lanes in turn: A's next request, then B's, then the rest of A's backlog.
    expect(completed).toEqual(['a1', 'a2', 'b', 'a3']);
    expect(await gauge('tessera_http_queue_refused')).toBe(1);
    expect(await gauge('tessera_http_in_flight')).toBe(1); // the scrape itself
  });
});
