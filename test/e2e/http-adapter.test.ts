/**
 * The HTTP adapter is visible: `/readyz` names it with the configured one, the metric
 * `tessera_http_adapter` carries both, and a fallback from uWebSockets.js to node:http is logged
 * as a warning with every candidate's reason (on a platform without a loadable uWS build, e.g.
 * Node 24 on glibc < 2.38; on Node 20 the uws branch is checked instead).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';
import { UWS_SKIP_REASON } from '../http/uws.fixture.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const node of nodes) {
    await node.stop();
    node.cleanup();
  }
});

async function observe(node: TestNode) {
  const ready = await fetch(`${node.baseUrl}/readyz`);
  const body = (await ready.json()) as Record<string, unknown>;
  const metrics = await (await fetch(`${node.baseUrl}/metrics`)).text();
  const metric = metrics.split('\n').filter((line) => line.startsWith('tessera_http_adapter{'));
  const warning = node.logs.find((entry) => entry.level === 'warn' && String(entry.msg).startsWith('uWebSockets.js is unavailable'));
  return { status: ready.status, http: body.http, metric, warning, listening: node.logs.find((entry) => entry.msg === 'listening') };
}

describe('HTTP adapter reporting', () => {
  it('TESSERA_HTTP=node: readiness and the metric say node, and nothing warns', async () => {
    const node = await startTestNode({ env: { TESSERA_HTTP: 'node' } });
    nodes.push(node);
    const seen = await observe(node);
    expect(seen.status).toBe(200);
    expect(seen.http).toEqual({ adapter: 'node', requested: 'node' });
    expect(seen.metric).toEqual(['tessera_http_adapter{adapter="node",requested="node"} 1']);
    expect(seen.warning).toBeUndefined();
    expect(seen.listening?.http).toBe('node');
  });

  it(`TESSERA_HTTP=uws: ${UWS_SKIP_REASON === undefined ? 'uWebSockets.js serves, quietly' : 'node:http serves, and says so loudly'}`, async () => {
    const node = await startTestNode({ env: { TESSERA_HTTP: 'uws' } });
    nodes.push(node);
    const seen = await observe(node);
    expect(seen.status).toBe(200);
    if (UWS_SKIP_REASON === undefined) {
      expect(seen.http).toEqual({ adapter: 'uws', requested: 'uws' });
      expect(seen.metric).toEqual(['tessera_http_adapter{adapter="uws",requested="uws"} 1']);
      expect(seen.warning).toBeUndefined();
      expect(seen.listening).toMatchObject({ http: 'uws', uwsPackage: '@trufflesuite/uws-js-unofficial' });
    } else {
      expect(seen.http).toEqual({ adapter: 'node', requested: 'uws' });
      expect(seen.metric).toEqual(['tessera_http_adapter{adapter="node",requested="uws"} 1']);
      expect(seen.warning).toMatchObject({ requested: 'uws', adapter: 'node', node: process.versions.node, abi: process.versions.modules });
      expect(seen.warning?.reasons).toEqual([expect.stringMatching(/^@trufflesuite\/uws-js-unofficial: /), expect.stringMatching(/^uWebSockets\.js: /)]);
      expect(seen.listening?.http).toBe('node');
    }
  });
});
