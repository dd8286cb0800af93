/**
 * Durability: kill -9 a node while clients write; after a restart every write that was
 * answered 2xx is there, and the store accepts writes again. The same for opaque access tokens,
 * whose TTL rows are written in group commits (many requests' tokens in one transaction). Both
 * with one thread and with two worker threads, each of which must have acknowledged some of them.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { basic, createApp, createMachineClient, createProject, postForm } from './oidc.fixture.js';

/** Two node starts, 200 acknowledged writes and a full search: about 25 s on a loaded machine with the node on PostgreSQL; up to ~80 s with two workers on a machine loaded ~20. */
const SLOW_TEST_MS = 150_000;

/** One thread, and two worker threads (writes and tokens acknowledged by both workers, the process killed as a whole). */
describe.each([1, 2])('kill -9 under write load, %i worker(s)', (workers) => {
  const env = { TESSERA_WORKERS: String(workers) };
  /** Which workers answered the acknowledged requests (x-tessera-worker; absent with one thread). */
  const answeredBy = new Set<string>();
  const expectEveryWorker = () => expect([...answeredBy].sort()).toEqual(workers === 1 ? [] : ['0', '1']);
  let node: TestNode | undefined;
  let tokenNode: TestNode | undefined;
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    await tokenNode?.stop();
    tokenNode?.cleanup();
  });

  it('loses no acknowledged opaque access token', async () => {
    answeredBy.clear();
    const first = await startTestNode({ env });
    const bot = await createMachineClient(first, 'crash-bot', 'BEARER');
    const projectId = await createProject(first, 'Crash Project');
    const caller = await createApp(first, projectId, 'Crash API', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    const form = { grant_type: 'client_credentials', scope: `profile urn:platform:iam:org:project:id:${projectId}:aud` };
    const acknowledged: string[] = [];
    let stop = false;
    const clients = Array.from({ length: 16 }, () =>
      (async () => {
        for (let i = 0; !stop && i < 5000; i += 1) {
          try {
            const r = await postForm(first, '/oauth/v2/token', form, basic(bot.clientId, bot.secret));
            if (r.status === 200) {
              acknowledged.push(r.body.access_token as string);
              const worker = r.headers.get('x-tessera-worker');
              if (worker !== null) answeredBy.add(worker);
            }
          } catch {
            return; // connection refused/reset once the node is gone
          }
        }
      })(),
    );
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 10));
    await first.kill();
    stop = true;
    await Promise.all(clients);
    expectEveryWorker();

    tokenNode = await startTestNode({ dataDir: first.dataDir, env });
    const restarted = tokenNode;
    const introspect = (token: string) => postForm(restarted, '/oauth/v2/introspect', { token }, basic(caller.clientId, caller.secret!));
    const inactive: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 16) {
      const slice = acknowledged.slice(i, i + 16);
      const answers = await Promise.all(slice.map((token) => introspect(token)));
      answers.forEach((answer, j) => answer.body.active !== true && inactive.push(slice[j]!));
    }
    expect(inactive).toEqual([]);
    // Control: introspection does tell an unknown token apart, and the node issues tokens again.
    expect((await introspect(randomBytes(32).toString('base64url'))).body).toEqual({ active: false });
    const again = await postForm(restarted, '/oauth/v2/token', form, basic(bot.clientId, bot.secret));
    expect(again.status).toBe(200);
    expect((await introspect(again.body.access_token as string)).body.active).toBe(true);
  }, SLOW_TEST_MS);

  it('loses no acknowledged write', async () => {
    answeredBy.clear();
    const first = await startTestNode({ env });
    // A connection per request: the kernel spreads them over the workers (keep-alive sockets could all land on one).
    const call = api(first, first.adminToken, { agent: new Agent({ keepAlive: false }) });
    const acknowledged: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; !stop && i < 5000; i += 1) {
          try {
            const r = await call('POST', '/resources/v3alpha/organizations', { name: `crash-${w}-${i}` });
            if (r.status === 201) {
              acknowledged.push(r.body.details.id);
              if (r.headers['x-tessera-worker'] !== undefined) answeredBy.add(String(r.headers['x-tessera-worker']));
            }
          } catch {
            return; // connection refused/reset once the node is gone
          }
        }
      })(),
    );
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 10));
    await first.kill();
    stop = true;
    await Promise.all(writers);
    expectEveryWorker();

    node = await startTestNode({ dataDir: first.dataDir, env });
    const found = new Set<string>();
    const again = api(node);
    for (let offset = 0; ; offset += 1000) {
      const page = await again('POST', `/resources/v3alpha/organizations/_search?query.limit=1000&query.offset=${offset}`, [
        { name: { name: 'crash-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } },
      ]);
      for (const o of page.body.result ?? []) found.add(o.details.id);
      if (page.body.details.endOfList) break;
    }
    const missing = acknowledged.filter((id) => !found.has(id));
    expect(missing).toEqual([]);
    expect((await again('POST', '/resources/v3alpha/organizations', { name: 'after-crash' })).status).toBe(201);
  }, SLOW_TEST_MS);
});
