/**
 * Where /metrics answers and for whom (issue #16): guarded by TESSERA_METRICS_TOKEN (401 without
 * the right bearer token), or moved to TESSERA_METRICS_PORT (404 on the main port); by default on
 * the main port, open, with a warning at start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';

const TOKEN = 'metrics-token-0123456789';
const WARNING = /TESSERA_METRICS_TOKEN/;
const nodes: TestNode[] = [];

async function start(env: Record<string, string>): Promise<TestNode> {
  const node = await startTestNode({ env });
  nodes.push(node);
  return node;
}
afterAll(async () => {
  for (const node of nodes) {
    await node.stop();
    node.cleanup();
  }
});

const warned = (node: TestNode) => node.logs.some((l) => l.level === 'warn' && WARNING.test(String(l.msg)));

describe('TESSERA_METRICS_TOKEN', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await start({ TESSERA_METRICS_TOKEN: TOKEN });
  });

  it('answers 401 without the token or with another one, 200 with it', async () => {
    const none = await fetch(`${node.baseUrl}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await none.text()).not.toContain('tessera_');
    expect((await fetch(`${node.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${node.baseUrl}/metrics`, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    const right = await fetch(`${node.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toMatch(/^tessera_ready 1$/m);
    expect(warned(node)).toBe(false);
  });
});

describe('TESSERA_METRICS_PORT', () => {
  let node: TestNode;
  let metricsUrl: string;
  beforeAll(async () => {
    node = await start({ TESSERA_METRICS_PORT: '0' });
    metricsUrl = `http://127.0.0.1:${Number(node.logs.find((l) => l.msg === 'listening')?.metricsPort)}`;
  });

  it('serves /metrics on its own port only', async () => {
    expect((await fetch(`${node.baseUrl}/metrics`)).status).toBe(404);
    expect((await fetch(`${node.baseUrl}/healthz`)).status).toBe(200);
    const metrics = await fetch(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^tessera_ready 1$/m);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(404);
    expect(warned(node)).toBe(false);
  });
});

describe('default', () => {
  it('serves /metrics on the main port to anyone, and warns at start', async () => {
    const node = await start({});
    expect((await fetch(`${node.baseUrl}/metrics`)).status).toBe(200);
    expect(warned(node)).toBe(true);
  });
});
