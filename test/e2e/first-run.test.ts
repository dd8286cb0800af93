/**
 * First run and restart: an empty store gets an instance, a default organization and an
 * admin service user whose token lands in a 0600 file (path logged, token never); a second
 * start reuses all of it. Invalid configuration stops the start naming the key.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, runCli, startTestNode, type TestNode } from './harness.js';

describe('first run', () => {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    for (const n of nodes) await n.stop();
    nodes[0]?.cleanup();
  });

  it('creates the setup once and reuses it on the next start', async () => {
    const first = await startTestNode();
    nodes.push(first);
    const tokenFile = join(first.dataDir, 'admin.pat');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const logged = first.logs.find((l) => l.msg === 'first run: admin token written');
    expect(logged?.tokenFile).toBe(tokenFile);
    const allLogs = JSON.stringify(first.logs);
    expect(allLogs).not.toContain(first.adminToken);

    const defaultOrg = await api(first)('GET', '/resources/v3alpha/organizations/_instance_default');
    expect(defaultOrg.status).toBe(200);
    const created = await api(first)('POST', '/resources/v3alpha/organizations', { name: 'Survives Restart' });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);

    const second = await startTestNode({ dataDir: first.dataDir });
    nodes.push(second);
    expect(second.adminToken).toBe(first.adminToken);
    expect(second.logs.find((l) => l.msg === 'first run: admin token written')).toBeUndefined();
    const again = await api(second)('GET', '/resources/v3alpha/organizations/_instance_default');
    expect(again.body.organization.details.id).toBe(defaultOrg.body.organization.details.id);
    expect((await api(second)('GET', `/resources/v3alpha/organizations/${created.body.details.id}`)).status).toBe(200);
  });

  it('serves health, readiness and metrics', async () => {
    const node = nodes[nodes.length - 1]!;
    expect((await fetch(`${node.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${node.baseUrl}/readyz`)).status).toBe(200);
    await fetch(`${node.baseUrl}/resources/v3alpha/organizations/_instance_default`, { headers: { authorization: `Bearer ${node.adminToken}` } });
    const metrics = await (await fetch(`${node.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/tessera_http_requests_total\{route="\/resources\/v3alpha\/organizations\/_instance_default",method="GET",transport="http",status="2xx"\} \d+/);
    expect(metrics).toMatch(/tessera_http_request_duration_seconds_bucket/);
    expect(metrics).toMatch(/tessera_actors_loaded \d+/);
  });
});

describe('configuration', () => {
  it.each([
    ['TESSERA_PORT', 'eighty', 'port (TESSERA_PORT)'],
    ['TESSERA_HTTP', 'nginx', 'http (TESSERA_HTTP)'],
    ['TESSERA_EXTERNAL_SECURE', 'perhaps', 'externalSecure (TESSERA_EXTERNAL_SECURE)'],
    ['TESSERA_MASTERKEY', 'short', 'master key'],
    ['TESSERA_LOG_LEVEL', 'loud', 'logLevel (TESSERA_LOG_LEVEL)'],
  ])('stops when %s is invalid', async (name, value, mention) => {
    const dataDir = join('/tmp', `tessera-bad-${name}`);
    const result = await runCli(['start'], { [name]: value, TESSERA_DATA_DIR: dataDir });
    rmSync(dataDir, { recursive: true, force: true }); // some checks run after the directory was made
    expect(result.code).not.toBe(0);
    expect(result.stderr.toLowerCase()).toContain(mention.toLowerCase());
    expect(result.stderr).not.toContain(value === 'short' ? 'short' : '\u0000');
  });
});
