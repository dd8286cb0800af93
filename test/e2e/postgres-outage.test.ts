/**
 * A PostgreSQL outage under write load, through a TCP proxy the test controls (no restart of
 * the machine's PostgreSQL): while every connection is cut, writes answer 503
 * `store.unavailable` with Retry-After (never 500 or a hang) and /readyz reports the store down;
 * once the proxy forwards again the node recovers by itself, readiness comes back, every
 * write still in flight is answered, and every acknowledged write is there.
 * Skipped, with the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.fixture.js';

const ORGS = '/resources/v3alpha/organizations';
const postgresVerdict = await meet(POSTGRES);
const title = 'a node on PostgreSQL through a database outage';

interface Answer {
  readonly phase: 'before' | 'cut' | 'after';
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | undefined;
  readonly id: string | undefined;
}

describeIfMet(postgresVerdict, title, () => {
  const schema = freshSchemaName();
  let proxy: TcpProxy;
  let node: TestNode;

  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL ?? '');
    proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port));
    node = await startTestNode({ env: { TESSERA_DATABASE_URL: proxy.url(TEST_DATABASE_URL ?? ''), TESSERA_DATABASE_SCHEMA: schema, TESSERA_MASTERKEY: 'b'.repeat(64) } });
  });
  afterAll(async () => {
    proxy.restore();
    expect(await node.stop()).toBe(0); // the node also shuts down cleanly after an outage
    node.cleanup();
    await proxy.close();
    await dropSchema(schema);
  });

  it('answers 503 with Retry-After while cut, reports readiness, recovers by itself and keeps every acknowledged write', { timeout: 180_000 }, async () => {
    const call = api(node);
    const ready = async () => {
      const reply = await call('GET', '/readyz', undefined, {});
      return { status: reply.status, body: reply.body };
    };
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'up' }, http: expect.objectContaining({ requested: 'uws' }) } });

    let phase: Answer['phase'] = 'before';
    let writing = true;
    const answers: Answer[] = [];
    let n = 0;
    const worker = async () => {
      while (writing) {
        const at = phase;
        const reply = await call('POST', ORGS, { name: `Outage Org ${n++}` });
        const code = reply.status === 201 ? undefined : String(reply.body?.details?.[0]?.id);
        answers.push({ phase: at, status: reply.status, code, retryAfter: reply.headers['retry-after'] as string | undefined, id: reply.status === 201 ? String(reply.body.details.id) : undefined });
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    const count = (p: Answer['phase'], status?: number) => answers.filter((a) => a.phase === p && (status === undefined || a.status === status)).length;
    await until(() => count('before', 201) >= 20);

    proxy.cut();
    phase = 'cut';
    await until(() => count('cut', 503) >= 10);
    // /readyz reuses its last report for up to a second (src/http/readiness.ts): on a fast machine
    // the ten refusals can come within a second of the report above, so wait that report out.
    await until(async () => (await ready()).status !== 200);
    const down = await ready();
    expect(down).toEqual({ status: 503, body: { status: 'not ready', checks: { store: { status: 'down', reason: 'store.unavailable' } }, http: expect.objectContaining({ requested: 'uws' }) } });

    proxy.restore();
    phase = 'after';
    await until(async () => (await ready()).status === 200);
    await until(() => count('after', 201) >= 20);
    writing = false;
    await Promise.all(workers); // every request got its answer

    const failed = answers.filter((a) => a.status !== 201);
    expect(failed.length).toBeGreaterThanOrEqual(10);
    for (const answer of failed) expect(answer).toMatchObject({ status: 503, code: 'store.unavailable', retryAfter: '1' });

    const acknowledged = answers.flatMap((a) => (a.id === undefined ? [] : [a.id]));
    const found = await call('POST', `${ORGS}/_search?query.limit=1000`, []);
    expect(found.status).toBe(200);
    const stored = new Set((found.body.result as { details: { id: string } }[]).map((o) => o.details.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'up' }, http: expect.objectContaining({ requested: 'uws' }) } });
  });
});

/** Polls `condition` every 50 ms until it holds (the test timeout bounds the wait). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}
