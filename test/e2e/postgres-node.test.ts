/**
 * One node on PostgreSQL (TESSERA_DATABASE_URL, a fresh schema): `tessera migrate` alone,
 * first run, organization CRUD and search through the real API, opaque tokens issued,
 * introspected and revoked (TTL tables), state kept across a restart, searches over entries
 * inside one row (project roles, org domains: sub-row indexes), and the audit read
 * (SearchEvents) over the PostgreSQL event stream. Skipped, with the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 * Two nodes on one database are issue 7's next step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, runCli, startTestNode, type TestNode } from './harness.js';
import { basic, createApp, createMachineClient, createProject, postForm } from './oidc.fixture.js';

const BASE = '/resources/v3alpha/organizations';
const MASTER_KEY = 'a'.repeat(64);
const postgresVerdict = await meet(POSTGRES);
const title = 'a node on PostgreSQL';

describeIfMet(postgresVerdict, title, () => {
  const schema = freshSchemaName();
  const env = { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: schema, TESSERA_MASTERKEY: MASTER_KEY };
  let node: TestNode;

  beforeAll(async () => {
    node = await startTestNode({ env });
  });
  afterAll(async () => {
    await node.stop();
    node.cleanup();
    await dropSchema(schema);
  });

  it('runs `tessera migrate` alone: current schema, and a usage error without a database', async () => {
    const again = await runCli(['migrate'], env);
    expect({ code: again.code, msg: again.stdout.includes('schema already current') }).toEqual({ code: 0, msg: true });
    const without = await runCli(['migrate'], {});
    expect({ code: without.code, stderr: without.stderr }).toEqual({
      code: 2,
      stderr: 'tessera migrate: TESSERA_DATABASE_URL is not set (the LMDB store needs no migrations)\n',
    });
  });

  it('creates, searches and keeps an organization across a restart', async () => {
    const call = api(node);
    const created = await call('POST', BASE, { name: 'Pg Corp' });
    expect(created.status).toBe(201);
    const id = String(created.body.details.id);
    const found = await call('POST', `${BASE}/_search`, [{ name: { name: 'pg', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }]);
    expect(found.status).toBe(200);
    expect((found.body.result as { details: { id: string } }[]).map((o) => o.details.id)).toEqual([id]);
    expect(BigInt(found.body.details.processedSequence)).toBeGreaterThanOrEqual(BigInt(created.body.details.sequence));

    expect(await node.stop()).toBe(0);
    node = await startTestNode({ env, dataDir: node.dataDir });
    const got = await api(node)('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.organization).toMatchObject({ organization: { name: 'Pg Corp' }, details: { id, sequence: created.body.details.sequence } });
    const renamed = await api(node)('PATCH', `${BASE}/${id}`, { name: 'Pg Inc' });
    expect(renamed.status).toBe(200);
  });

  it('searches entries inside one row (project roles, org domains) on the sub-row indexes, kept with each change and across a restart', async () => {
    const call = api(node);
    const projectId = await createProject(node, 'Pg Roles');
    const roles = `/resources/v3alpha/projects/${projectId}/roles`;
    for (const [key, displayName] of [['viewer', 'Viewer'], ['editor', 'Editor'], ['admin', 'Admin']]) {
      expect((await call('POST', roles, { key, displayName })).status).toBe(201);
    }
    const keys = async (qs: string, filters: unknown[] = []) => {
      const found = await call('POST', `${roles}/_search${qs}`, filters);
      expect(found.status).toBe(200);
      return { keys: ((found.body.result ?? []) as { role: { key: string } }[]).map((r) => r.role.key), total: found.body.details.totalResult };
    };
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_KEY&query.asc=true')).toEqual({ keys: ['admin', 'editor', 'viewer'], total: '3' });
    expect((await keys('', [{ displayName: { text: 'edit', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }])).keys).toEqual(['editor']);
    // A removed and a renamed entry move in the indexes with their row.
    expect((await call('DELETE', `${roles}/editor`)).status).toBe(200);
    expect((await call('PATCH', `${roles}/viewer`, { displayName: 'Reader' })).status).toBe(200);
    expect(await keys('?sortingColumn=PROJECT_ROLE_FIELD_NAME_DISPLAY_NAME&query.asc=true')).toEqual({ keys: ['admin', 'viewer'], total: '2' });
    expect((await keys('', [{ displayName: { text: 'Viewer' } }])).keys).toEqual([]);
    expect((await keys('', [{ displayName: { text: 'Reader' } }])).keys).toEqual(['viewer']);
    // Domains of the org that owns the project: its generated primary domain.
    const orgId = String((await call('GET', `/resources/v3alpha/projects/${projectId}`)).body.project.details.resourceOwner.id);
    const domains = await call('POST', '/resources/v3alpha/domains/_search', [{ orgId: { id: orgId } }]);
    expect(domains.status).toBe(200);
    expect((domains.body.result as { isPrimary: boolean }[]).filter((d) => d.isPrimary)).toHaveLength(1);
    expect((await call('POST', '/resources/v3alpha/domains/_search', [{ orgId: { id: '4242' } }])).body.result).toBeUndefined();

    expect(await node.stop()).toBe(0);
    node = await startTestNode({ env, dataDir: node.dataDir });
    const after = await api(node)('POST', `${roles}/_search?sortingColumn=PROJECT_ROLE_FIELD_NAME_KEY`, []);
    expect(((after.body.result ?? []) as { role: { key: string } }[]).map((r) => r.role.key)).toEqual(['viewer', 'admin']);
  });

  it('lists an organization\'s events (SearchEvents), paged by cursor, with the machine secret digest redacted', async () => {
    const call = api(node);
    const created = await call('POST', BASE, { name: 'Pg Audit' });
    const id = String(created.body.details.id);
    expect((await call('PATCH', `${BASE}/${id}`, { name: 'Pg Audit 2' })).status).toBe(200);
    const filter = [{ aggregate: { aggregateType: 'org', aggregateId: id } }];
    const first = await call('POST', '/resources/v3alpha/events/_search?query.asc=true&query.limit=1', filter);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result.map((e: { eventType: string }) => e.eventType)).toEqual(['org.added']);
    const second = await call('POST', `/resources/v3alpha/events/_search?query.asc=true&query.limit=1&cursor=${String(first.body.cursor)}`, filter);
    expect(second.body.result.map((e: { eventType: string }) => e.eventType)).toEqual(['org.changed']);
    expect(second.body.details.endOfList).toBe(true);
    const bot = await createMachineClient(node, 'pg-audit-bot', 'BEARER');
    const secrets = await call('POST', '/resources/v3alpha/events/_search', [{ aggregate: { aggregateType: 'user', aggregateId: bot.userId } }, { eventType: { eventType: 'user.machine.secret.set' } }]);
    expect(secrets.body.result).toHaveLength(1);
    expect(secrets.body.result[0].payload).toEqual({ digest: '[redacted]' });
  });

  it('issues, introspects and revokes opaque tokens, and keeps both states across a restart', async () => {
    const bot = await createMachineClient(node, 'pg-bot', 'BEARER');
    const projectId = await createProject(node, 'Pg Project');
    const caller = await createApp(node, projectId, 'Pg API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const issue = async () => {
      const issued = await postForm(node, '/oauth/v2/token', { grant_type: 'client_credentials', scope: `profile urn:platform:iam:org:project:id:${projectId}:aud` }, basic(bot.clientId, bot.secret));
      expect(issued.status).toBe(200);
      return String(issued.body.access_token);
    };
    const introspect = async (token: string) => (await postForm(node, '/oauth/v2/introspect', { token }, basic(caller.clientId, caller.secret ?? ''))).body;
    const [revoked, kept] = [await issue(), await issue()];
    expect(await introspect(revoked)).toMatchObject({ active: true, sub: bot.userId });
    expect((await postForm(node, '/oauth/v2/revoke', { token: revoked }, basic(bot.clientId, bot.secret))).status).toBe(200);
    expect(await introspect(revoked)).toEqual({ active: false });

    expect(await node.stop()).toBe(0);
    node = await startTestNode({ env, dataDir: node.dataDir });
    expect(await introspect(revoked)).toEqual({ active: false });
    expect(await introspect(kept)).toMatchObject({ active: true, sub: bot.userId });
  });
});
