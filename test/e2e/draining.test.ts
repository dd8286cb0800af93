/**
 * Draining (issue #16): after SIGTERM, for TESSERA_SHUTDOWN_DRAIN_MS, /readyz answers 503 (and
 * tessera_ready is 0) while the port keeps answering — /healthz stays 200 and a request already
 * in flight (its body still arriving) completes — so a load balancer can take the node out
 * before its listener closes.
 */
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, waitFor, type TestNode } from './harness.js';

const LONG = '600000';
let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_SHUTDOWN_DRAIN_MS: LONG, TESSERA_SHUTDOWN_GRACE_MS: LONG, TESSERA_BODY_TIMEOUT_MS: LONG } });
});
afterAll(async () => {
  await node.kill(); // the drain would last ten minutes
  node.cleanup();
});


describe('SIGTERM with a drain period', () => {
  it('answers /readyz 503 while the port still serves and an in-flight request completes', async () => {
    expect((await fetch(`${node.baseUrl}/readyz`)).status).toBe(200);

    // A request whose body arrives slowly: half now, the rest after the signal.
    const body = JSON.stringify({ name: 'Created While Draining' });
    let finishSlow = () => {};
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      const slow = request({ host: '127.0.0.1', port: node.httpPort, method: 'POST', path: '/resources/v3alpha/organizations', headers: { host: `localhost:${node.httpPort}`, authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, resolve);
      slow.on('error', reject);
      slow.write(body.slice(0, 10));
      finishSlow = () => slow.end(body.slice(10));
    });

    node.process.kill('SIGTERM');
    await waitFor('the draining log line', () => (node.logs.some((l) => l.msg === 'draining: /readyz answers 503 until the listeners close') ? true : undefined));

    const ready = await fetch(`${node.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready' });
    expect((await fetch(`${node.baseUrl}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${node.baseUrl}/metrics`)).text()).toMatch(/^tessera_ready 0$/m);

    finishSlow();
    expect((await answered).statusCode).toBe(201);
    expect(node.process.exitCode).toBeNull(); // still draining
  });
});
