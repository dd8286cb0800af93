/**
 * The timeouts of /admin/v1/export and /admin/v1/import, driven by a clock that jumps a second
 * on every reading: a partial export never answers 200 (504, and its spool file is gone); an
 * import that runs out of time answers 504 with the partial result, keeping the work done.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, userKind } from '../../actors/index.js';
import { adminRoutes, type AdminRouteDeps } from '../../src/api/admin/v1/admin-routes.js';
import { TenantDirectory } from '../../src/query/tenant.js';
import { prepareNode, type PreparedNode } from '../../src/cli/prepare-node.js';
import { loadConfig } from '../../src/config/load.js';
import type { HttpReply, HttpRequest } from '../../src/http/types.js';
import { createLogger } from '../../src/observability/logger.js';
import { suiteTempDirs } from '../temp-dirs.js';

let dataDir: string;
const newDataDir = suiteTempDirs('tessera-admin-');
let prepared: PreparedNode;
let deps: AdminRouteDeps;
let token: string;

/** Reads advance the clock by a second each. */
function jumpingClock() {
  let current = systemClock.now();
  return { now: () => (current += 1000) };
}

function request(path: string, body: unknown): HttpRequest {
  return {
    method: 'POST',
    path,
    query: '',
    headers: { host: 'localhost', authorization: `Bearer ${token}` },
    body: Buffer.from(JSON.stringify(body)),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
    signal: new AbortController().signal,
    params: {},
    startedAt: 0,
    requestId: 'test-request',
  };
}

async function call(path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const route = adminRoutes(deps).find((r) => r.pattern === path)!;
  const reply: HttpReply = await route.handler(request(path, body));
  return { status: reply.status, body: JSON.parse(String(reply.body)) };
}

beforeAll(async () => {
  dataDir = newDataDir();
  const config = loadConfig({ env: { TESSERA_DATA_DIR: dataDir } });
  const logger = createLogger('silent');
  prepared = await prepareNode(config, logger);
  const tenants = new TenantDirectory(prepared.actors, () => systemClock.now());
  await tenants.load();
  token = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
  deps = { dataDir, actors: prepared.actors, tenants, clock: jumpingClock(), logger };
});

afterAll(async () => {
  await prepared.close();
});

describe('admin timeouts', () => {
  it('answers 504 instead of a partial export, and removes the spool file', async () => {
    const response = await call('/admin/v1/export', { response_output: true, timeout: '1ms' });
    expect(response.status).toBe(504);
    expect(response.body.details[0].id).toBe('export.deadline_exceeded');
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
  });

  it('answers 504 with the partial result and keeps the work done', async () => {
    const machine = (userId: string) => ({ userId, user: { userName: userId, name: userId } });
    const doc = { orgs: [{ orgId: 'late-org', org: { name: 'Late Org' }, machineUsers: [machine('late-1'), machine('late-2')] }] };
    // readings: authorize, start (deadline = start + 2.5s), then one per item: org, late-1, late-2 (too late)
    const response = await call('/admin/v1/import', { timeout: '2500ms', data_orgsv1: JSON.stringify(doc) });
    expect(response.status).toBe(504);
    expect(response.body.details[0].id).toBe('import.deadline_exceeded');
    expect(response.body.counts).toEqual({ org: { created: 1, skipped: 0, failed: 0 }, machine_user: { created: 1, skipped: 0, failed: 0 } });
    const instanceId = (await deps.tenants.resolveHost('localhost'))!.id;
    expect(await prepared.actors.readRecord(instanceId, userKind, 'late-1')).toBeDefined();
    expect(await prepared.actors.readRecord(instanceId, userKind, 'late-2')).toBeUndefined();
  });
});
