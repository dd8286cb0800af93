/**
 * Rate limits counted cluster-wide through PostgreSQL (docs/operations/rate-limits.md, "Several
 * nodes"): two nodes on one schema, called through one Host as behind a load balancer. An
 * instance's own limits set on node A reach node B through the change feed (its lag metric
 * counts the change); an API caller limit of 5 counted across both nodes refuses the 6th call
 * on the other node (volume limit: deltas synced in batches, waited for by reading the counts
 * table), and a client's failed authentications on both nodes add up to the block (failure
 * limit: counted in PostgreSQL at each failure), and the block reaches the first node too.
 * Positive controls: another caller and another client pass, and the right secret passes before
 * the failures. Skipped, with the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { basic, createApp, createProject } from './oidc.fixture.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const postgresVerdict = await meet(POSTGRES);
/** The change feed's worst case is its 5 s re-check; the deadline leaves room on a busy machine. */
const DEADLINE_MS = 20_000;
const HOST = 'localhost';
const PATH = '/settings/v3alpha/rate_limits';

/** Polls until `check` holds; answers the last value once the deadline passes. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeIfMet(postgresVerdict, 'rate limits shared by several nodes on one PostgreSQL database', () => {
  const schema = freshSchemaName();
  let a: TestNode;
  let b: TestNode;
  let db: postgres.Sql;

  beforeAll(async () => {
    const env = {
      TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '',
      TESSERA_DATABASE_SCHEMA: schema,
      TESSERA_MASTERKEY: 'c'.repeat(64),
    };
    a = await startTestNode({ env });
    b = await startTestNode({ env, dataDir: a.dataDir });
    db = postgres(TEST_DATABASE_URL ?? '', { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.end({ timeout: 5 });
    a?.cleanup();
    await dropSchema(schema);
  });

  const on = (node: TestNode, token = a.adminToken) => (method: string, path: string, body?: unknown) => api(node, token)(method, path, body, { host: HOST });
  const feedChanges = async (node: TestNode) => Number(/^tessera_change_feed_lag_seconds_count (\d+)/m.exec(String((await api(node, '')('GET', '/metrics')).body))?.[1] ?? 0);

  /** Sets the instance's limits on node A and waits until node B's change feed applied the write. */
  async function setLimitsOnA(limits: Record<string, unknown>): Promise<void> {
    const before = await feedChanges(b);
    expect((await on(a)('PATCH', PATH, limits)).status).toBe(200);
    expect(await eventually(() => feedChanges(b), (n) => n > before)).toBeGreaterThan(before);
  }

  it('counts an API caller limit of 5 across both nodes: the 6th call, on the other node, is 429', async () => {
    const { instanceId } = await readSetup(a);
    const caller = await seedMachineUser(a, { username: 'cluster-caller', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const other = await seedMachineUser(a, { username: 'cluster-bystander', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    // Node B serves the caller first, so it holds the instance's limiter set (the node default) before the change.
    expect((await on(b, caller.token)('GET', PATH)).status).toBe(200);
    await setLimitsOnA({ apiCaller: { set: '5/1d' } });
    // Node B reads the new value: the instance's own limit, not the default.
    expect((await on(b)('GET', PATH)).body.limits.apiCaller).toEqual({ value: '5/1d' });

    for (let i = 0; i < 3; i += 1) expect((await on(a, caller.token)('GET', PATH)).status).toBe(200);
    // Node A sends its counts in batches (200 ms): wait until the table holds them (rows of the instance's own limit).
    const counted = async () => Number((await db.unsafe<{ total: string | null }[]>(`SELECT sum(points) AS total FROM rate_limit_counts WHERE key LIKE $1`, [`${instanceId}:apiCaller:%${caller.userId}%`]))[0]?.total ?? 0);
    expect(await eventually(counted, (n) => n >= 3)).toBe(3);

    const statuses: number[] = [];
    let last = await on(b, caller.token)('GET', PATH);
    statuses.push(last.status);
    for (let i = 0; i < 2; i += 1) {
      last = await on(b, caller.token)('GET', PATH);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]); // calls 4 and 5 pass, the 6th is refused
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    // positive control: another caller of the instance is not limited on either node
    expect((await on(b, other.token)('GET', PATH)).status).toBe(200);
    expect((await on(a, other.token)('GET', PATH)).status).toBe(200);
    // the refusal is counted on the node that refused
    expect(String((await api(b, '')('GET', '/metrics')).body)).toMatch(new RegExp(`tessera_rate_limit_rejections_total\\{limit="apiCaller",instance="${instanceId}"\\} 1`));
  });

  it('adds up failed client authentications on both nodes: after 2 on A and 1 on B (limit 3), B refuses the right secret', async () => {
    await setLimitsOnA({ apiCaller: { reset: true }, clientAuthFailures: { set: '3/1d' } });
    const projectId = await createProject(a, 'Cluster limits');
    const target = await createApp(a, projectId, 'Guessed in the cluster', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const bystander = await createApp(a, projectId, 'Bystander in the cluster', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const introspect = async (node: TestNode, client: { clientId: string }, secret: string) =>
      (await api(node, '')('POST', '/oauth/v2/introspect', 'token=not-a-token', { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...basic(client.clientId, secret) })).status;
    expect(await introspect(b, target, target.secret!)).toBe(200); // positive control: the right secret works on B
    expect(await introspect(a, target, 'wrong')).toBe(401);
    expect(await introspect(a, target, 'wrong')).toBe(401);
    expect(await introspect(b, target, 'wrong')).toBe(401); // the 3rd failure in the cluster, 1st on B
    expect(await introspect(b, target, target.secret!)).toBe(429); // B counted 3 in PostgreSQL, not 1
    expect(await introspect(b, bystander, bystander.secret!)).toBe(200); // another client of the instance passes
    // B published the block: A refuses the right secret too once its sync read it (polled with a deadline).
    expect(await eventually(() => introspect(a, target, target.secret!), (status) => status === 429)).toBe(429);
    expect(await introspect(a, bystander, bystander.secret!)).toBe(200);
  });
});
