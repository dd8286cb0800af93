/**
 * A node with two worker threads (TESSERA_WORKERS=2, docs/architecture.md "Workers"): both
 * serve the one port, and which one answered is in `x-tessera-worker`. A write answered by one
 * worker is read back at once, over a connection the other worker serves, many times each way
 * (read-your-writes across workers: rows, caches, TTL rows such as opaque tokens). Tokens are
 * issued on both; /metrics counts the requests of both; a worker that fails is restarted and
 * serves again; SIGTERM stops the node cleanly: the port closes, the requests in flight on both
 * workers are answered and kept, and a worker failing during that drain closes its sockets and
 * ends without aborting the process (uWS aborts a process whose thread ends with sockets open).
 *
 * No negative control for the read-your-writes loop: with one request at a time, an idle
 * worker renews its read snapshot on its next timer turn and its channel listener applies the
 * change, so switching the generation check off would not make this loop fail deterministically.
 * The check itself is shown deterministically in test/cluster/worker-feed.test.ts.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { basic } from './oidc.fixture.js';
import { codeRequest, startLogin } from './login-flow.fixture.js';
import { createFlowTenant } from './oidc-code-flow.fixture.js';

type Reply = { status: number; headers: IncomingHttpHeaders; body: Record<string, any> };

const CLIENT_LIMIT = 12;
let node: TestNode;
/** One keep-alive connection per worker: index = the worker that serves it. */
let connections: Agent[] = [];

/** A call over one connection (agent with a single socket), so the worker serving it stays the same. */
function call(agent: Agent, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return api(node, node.adminToken, { agent })(method, path, body, headers);
}

const form = (agent: Agent, path: string, params: Record<string, string>, headers: Record<string, string>) => call(agent, 'POST', path, new URLSearchParams(params).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });

/** Opens connections until each worker serves one; returns them by worker index. */
async function connectionPerWorker(workers: number): Promise<Agent[]> {
  const found = new Map<number, Agent>();
  for (let attempt = 0; attempt < 200 && found.size < workers; attempt += 1) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const res = await call(agent, 'GET', '/healthz');
    const worker = Number(res.headers['x-tessera-worker']);
    if (res.status === 200 && !found.has(worker)) found.set(worker, agent);
    else agent.destroy();
  }
  return Array.from({ length: workers }, (_, i) => found.get(i) as Agent);
}

/** Every call on `agent` is answered by `worker` (the connection stays on its worker). */
function expectWorker(res: Reply, worker: number): void {
  expect(res.headers['x-tessera-worker']).toBe(String(worker));
}

beforeAll(async () => {
  // TESSERA_TEST_MODE: SIGUSR2 makes the last worker fail (the restart test).
  // A client may get CLIENT_LIMIT tokens an hour: counted once for the node, whichever worker answers.
  // Rate-limit counts in memory, kept by the main thread for both workers (the exact once-per-node
  // count checked below). On PostgreSQL the default is counting in the database, shared by every
  // node and worker with a 200 ms sync of volume counts (test/e2e/rate-limits-cluster.test.ts).
  // The last test stops the node with requests in flight whose bodies arrive late: a long grace and body timeout.
  node = await startTestNode({ env: { TESSERA_WORKERS: '2', TESSERA_TEST_MODE: '1', TESSERA_RATE_LIMIT_CLIENT: `${CLIENT_LIMIT}/1h`, TESSERA_RATE_LIMIT_STORE: 'memory', TESSERA_SHUTDOWN_GRACE_MS: '120000', TESSERA_BODY_TIMEOUT_MS: '120000' } });
  connections = await connectionPerWorker(2);
}, 120_000);
afterAll(async () => {
  for (const agent of connections) agent?.destroy();
  if (node?.process.exitCode === null) await node.stop();
  node?.cleanup();
});

describe('a node with two workers', () => {
  it('serves the port from both workers', () => {
    expect(connections.every((agent) => agent !== undefined)).toBe(true);
    expect(node.logs.filter((l) => l.msg === 'worker started').map((l) => l.worker)).toEqual(expect.arrayContaining([0, 1]));
  });

  it('reads every write back at once on the other worker (organizations created and renamed)', async () => {
    const mismatches: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const writer = i % 2;
      const reader = 1 - writer;
      const created = await call(connections[writer] as Agent, 'POST', '/resources/v3alpha/organizations', { name: `Worker Org ${i}` });
      expect(created.status).toBe(201);
      expectWorker(created, writer);
      const id = String(created.body.details.id);
      const read = await call(connections[reader] as Agent, 'GET', `/resources/v3alpha/organizations/${id}`);
      expectWorker(read, reader);
      if (read.status !== 200 || read.body.organization?.organization?.name !== `Worker Org ${i}`) mismatches.push(`create ${i}: ${read.status} ${JSON.stringify(read.body)}`);
      // Renamed on the reader's worker, read on the writer's: the writer's actor cached the org.
      const renamed = await call(connections[reader] as Agent, 'PATCH', `/resources/v3alpha/organizations/${id}`, { name: `Renamed Org ${i}` });
      expect(renamed.status).toBe(200);
      const reread = await call(connections[writer] as Agent, 'GET', `/resources/v3alpha/organizations/${id}`);
      if (reread.body.organization?.organization?.name !== `Renamed Org ${i}`) mismatches.push(`rename ${i}: ${JSON.stringify(reread.body)}`);
      // And the writer's actor writes again on top of the rename at once (its cached state was dropped).
      const again = await call(connections[writer] as Agent, 'PATCH', `/resources/v3alpha/organizations/${id}`, { name: `Final Org ${i}` });
      expect(again.status).toBe(200);
      const final = await call(connections[reader] as Agent, 'GET', `/resources/v3alpha/organizations/${id}`);
      if (final.body.organization?.organization?.name !== `Final Org ${i}`) mismatches.push(`final ${i}: ${JSON.stringify(final.body)}`);
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("shows a branding change made on one worker on the other worker's next login page (instance read state, worker feed)", async () => {
    const redirectUri = 'http://127.0.0.1:9/cb';
    expect((await call(connections[0] as Agent, 'PATCH', '/settings/v3alpha/features', { multitenancy_settings: true })).status).toBe(200); // the branding API
    const tenant = await createFlowTenant(node, redirectUri);
    const started = await startLogin(node, codeRequest(node, tenant.clientId, redirectUri).url);
    const colorOn = async (worker: number): Promise<string | undefined> => {
      const page = await call(connections[worker] as Agent, 'GET', started.location, undefined, { cookie: started.jar.header() });
      expectWorker(page, worker);
      expect(page.status).toBe(200);
      return /--primary-color:(#[0-9a-f]{6})/i.exec(String(page.body))?.[1];
    };
    const mismatches: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const writer = i % 2;
      const reader = 1 - writer;
      const color = `#${(0x102030 + i * 0x010101).toString(16)}`;
      // Control: the reader renders the page first, so its read state holds the branding before the change.
      const before = await colorOn(reader);
      if (before === color) mismatches.push(`before ${i}: already ${color}`);
      const set = await call(connections[writer] as Agent, 'PATCH', '/settings/v3alpha/branding', { primaryColor: { set: color } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expectWorker(set, writer);
      const shown = await colorOn(reader);
      if (shown !== color) mismatches.push(`reader ${i}: ${shown} instead of ${color}`);
      const own = await colorOn(writer);
      if (own !== color) mismatches.push(`writer ${i}: ${own} instead of ${color}`);
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('loses no update when both workers write to the same organization at once (conflicts retried or refused cleanly)', async () => {
    const created = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/organizations', { name: 'Contended Org' });
    expect(created.status).toBe(201);
    const orgId = String(created.body.details.id);
    const add = (worker: number, domain: string) => call(connections[worker] as Agent, 'POST', `/resources/v3alpha/domains?ctx.orgId=${orgId}`, { domain });
    // Separate connections per request (new agents), so both workers receive many at once.
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const domain = `d${i}.contended.test`;
        const res = await call(new Agent({ keepAlive: false }), 'POST', `/resources/v3alpha/domains?ctx.orgId=${orgId}`, { domain });
        return { domain, worker: res.headers['x-tessera-worker'], status: res.status, code: res.body?.details?.[0]?.id };
      }),
    );
    for (const r of results.filter((x) => x.status !== 201)) expect({ status: r.status, code: r.code }).toEqual({ status: 409, code: 'store.contention' });
    const acknowledged = results.filter((x) => x.status === 201);
    expect(new Set(acknowledged.map((x) => x.worker))).toEqual(new Set(['0', '1']));
    for (const worker of [0, 1]) {
      const listed = await call(connections[worker] as Agent, 'POST', '/resources/v3alpha/domains/_search', [{ orgId: { id: orgId } }]);
      expect(listed.status).toBe(200);
      const domains = (listed.body.result as { domain: string }[]).map((d) => d.domain).filter((d) => d.endsWith('.contended.test'));
      expect(domains.sort()).toEqual(acknowledged.map((x) => x.domain).sort());
    }
    // Both workers' actors are current: a further write from each succeeds at once.
    expect((await add(0, 'late-0.contended.test')).status).toBe(201);
    expect((await add(1, 'late-1.contended.test')).status).toBe(201);
  }, 120_000);

  it('issues tokens on both workers for a client created on the other, and introspects each on the other (opaque tokens are TTL rows)', async () => {
    const w0 = connections[0] as Agent;
    const w1 = connections[1] as Agent;
    const project = await call(w0, 'POST', '/resources/v3alpha/projects', { name: 'Workers Project' });
    expect(project.status).toBe(201);
    const projectId = String(project.body.details.id);
    const apiApp = await call(w1, 'POST', '/resources/v3alpha/apps', { projectId, name: 'Workers API', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(apiApp.status).toBe(201);
    const appAuth = basic(String(apiApp.body.clientId), String(apiApp.body.clientSecret));
    const scope = `profile urn:platform:iam:org:project:id:${projectId}:aud`;
    const results: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const writer = i % 2;
      const reader = 1 - writer;
      const tokenType = i % 4 < 2 ? 'BEARER' : 'JWT';
      const user = await call(connections[writer] as Agent, 'POST', '/resources/v3alpha/users', { machine: { username: `worker-bot-${i}`, name: `bot ${i}`, accessTokenType: `ACCESS_TOKEN_TYPE_${tokenType}` } });
      expect(user.status).toBe(201);
      const secret = await call(connections[writer] as Agent, 'POST', `/resources/v3alpha/users/${user.body.details.id}/_generate_secret`);
      expect(secret.status).toBe(200);
      // The client made on one worker gets its token from the other at once.
      const token = await form(connections[reader] as Agent, '/oauth/v2/token', { grant_type: 'client_credentials', scope }, basic(String(secret.body.clientId), String(secret.body.clientSecret)));
      expectWorker(token, reader);
      // And the token issued there is active on the first one at once.
      const introspected = await form(connections[writer] as Agent, '/oauth/v2/introspect', { token: String(token.body.access_token) }, appAuth);
      expectWorker(introspected, writer);
      results.push(`${i} ${tokenType} token ${token.status} active ${introspected.body.active} sub ${introspected.body.sub === user.body.details.id}`);
    }
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => `${i} ${i % 4 < 2 ? 'BEARER' : 'JWT'} token 200 active true sub true`));
  }, 120_000);

  it("signs the other worker's next token with the key one worker rotated to (the key ring its instance state held, worker feed)", async () => {
    const user = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/users', { machine: { username: 'rotation-bot', name: 'rotation', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } });
    const secret = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${user.body.details.id}/_generate_secret`);
    const auth = basic(String(secret.body.clientId), String(secret.body.clientSecret));
    const kidOn = async (worker: number): Promise<string> => {
      const res = await form(connections[worker] as Agent, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, auth);
      expectWorker(res, worker);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const header = JSON.parse(Buffer.from(String(res.body.access_token).split('.')[0]!, 'base64url').toString()) as { kid: string };
      return header.kid;
    };
    const rounds: string[] = [];
    // Three tokens a round, three rounds: within the client's CLIENT_LIMIT.
    for (let i = 0; i < 3; i += 1) {
      const writer = i % 2;
      const reader = 1 - writer;
      const before = await kidOn(reader); // control: the reader holds the ring before the rotation
      const rotated = await call(connections[writer] as Agent, 'POST', '/resources/v3alpha/web_keys/_rotate', {});
      expectWorker(rotated, writer);
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const after = await kidOn(reader);
      const own = await kidOn(writer);
      rounds.push(`${i} changed ${after !== before} same on both ${after === own}`);
    }
    expect(rounds).toEqual(Array.from({ length: 3 }, (_, i) => `${i} changed true same on both true`));
  });

  it("refuses a machine user's old secret and then its deactivation on the next request on either worker (the client each worker's instance state held)", async () => {
    const user = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/users', { machine: { username: 'held-bot', name: 'held', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } });
    const userId = String(user.body.details.id);
    const first = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${userId}/_generate_secret`);
    const clientId = String(first.body.clientId);
    const tokenOn = async (worker: number, secret: string): Promise<number> => {
      const res = await form(connections[worker] as Agent, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, basic(clientId, secret));
      expectWorker(res, worker);
      return res.status;
    };
    // Control: both workers accept the first secret, so both hold the client.
    expect([await tokenOn(0, String(first.body.clientSecret)), await tokenOn(1, String(first.body.clientSecret))]).toEqual([200, 200]);
    const second = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${userId}/_generate_secret`);
    expectWorker(second, 0);
    const fresh = String(second.body.clientSecret);
    // Old secret first, so worker 1 is not re-reading for the new one: the worker feed dropped what it held.
    expect([await tokenOn(1, String(first.body.clientSecret)), await tokenOn(0, String(first.body.clientSecret))]).toEqual([401, 401]);
    expect([await tokenOn(1, fresh), await tokenOn(0, fresh)]).toEqual([200, 200]);
    const deactivated = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${userId}/_deactivate`);
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    expect([await tokenOn(0, fresh), await tokenOn(1, fresh)]).toEqual([401, 401]); // the same worker (own append), the other (worker feed)
  });

  it("refuses a PAT's removed instance role and then the deleted PAT on the next request on either worker (the caller each worker's instance state held)", async () => {
    const user = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/users', { machine: { username: 'pat-bot', name: 'pat', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' } });
    const userId = String(user.body.details.id);
    const pat = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${userId}/tokens`, {});
    const membership = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/memberships', { instance: true, userId, roles: ['IAM_OWNER_VIEWER'] });
    expect([pat.status, membership.status]).toEqual([201, 201]);
    const getOn = async (worker: number): Promise<number> => {
      const res = await api(node, String(pat.body.token), { agent: connections[worker] as Agent })('GET', `/resources/v3alpha/users/${userId}`);
      expectWorker(res, worker);
      return res.status;
    };
    // Control: both workers accept the PAT and its instance role, so both hold the caller.
    expect([await getOn(0), await getOn(1)]).toEqual([200, 200]);
    const removed = await call(connections[0] as Agent, 'DELETE', `/resources/v3alpha/memberships/${encodeURIComponent(String(membership.body.details.id))}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect([await getOn(1), await getOn(0)]).toEqual([403, 403]); // the other worker (worker feed), the same (own append)
    const deleted = await call(connections[0] as Agent, 'DELETE', `/resources/v3alpha/users/${userId}/tokens/${String(pat.body.tokenId)}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect([await getOn(1), await getOn(0)]).toEqual([401, 401]);
  });

  it('counts a client rate limit once for the node: half the requests on each worker, refused on both past the limit', async () => {
    const user = await call(connections[0] as Agent, 'POST', '/resources/v3alpha/users', { machine: { username: 'limited-bot', name: 'limited', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' } });
    const secret = await call(connections[0] as Agent, 'POST', `/resources/v3alpha/users/${user.body.details.id}/_generate_secret`);
    const auth = basic(String(secret.body.clientId), String(secret.body.clientSecret));
    const answers: string[] = [];
    for (let i = 0; i < CLIENT_LIMIT + 2; i += 1) {
      const res = await form(connections[i % 2] as Agent, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, auth);
      answers.push(`${res.headers['x-tessera-worker']}:${res.status}`);
    }
    // Each worker alone would allow CLIENT_LIMIT: the last two would pass as well.
    expect(answers).toEqual([...Array.from({ length: CLIENT_LIMIT }, (_, i) => `${i % 2}:200`), '0:429', '1:429']);
  });

  it("counts both workers' requests in /metrics, whichever worker answers the scrape", async () => {
    const served = async (agent: Agent): Promise<number> => {
      const res = await call(agent, 'GET', '/metrics');
      expect(res.status).toBe(200);
      return Number(/^tessera_http_requests_total\{route="\/healthz",method="GET",transport="http",status="2xx"\} (\d+)$/m.exec(String(res.body))?.[1] ?? 0);
    };
    const before = await served(connections[0] as Agent);
    for (const agent of connections) for (let i = 0; i < 3; i += 1) expect((await call(agent, 'GET', '/healthz')).status).toBe(200);
    // Six probes, three on each worker: the scrape of either worker counts all six.
    expect(await served(connections[1] as Agent)).toBe(before + 6);
    const ready = await call(connections[0] as Agent, 'GET', '/metrics');
    expect(/^tessera_ready 1$/m.test(String(ready.body))).toBe(true);
  });

  it('restarts a worker that failed; it serves again', async () => {
    const restartedBefore = node.logs.filter((l) => l.msg === 'worker started' && l.worker === 1).length;
    node.process.kill('SIGUSR2'); // TESSERA_TEST_MODE: the last worker throws an uncaught error
    const deadline = Date.now() + 60_000;
    while (node.logs.filter((l) => l.msg === 'worker started' && l.worker === 1).length === restartedBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(node.logs.some((l) => l.msg === 'worker exited; restarting it' && l.worker === 1)).toBe(true);
    expect(node.logs.filter((l) => l.msg === 'worker started' && l.worker === 1).length).toBe(restartedBefore + 1);
    // Its connection was closed; new connections reach both workers again, and writes still read back across them.
    for (const agent of connections) agent.destroy();
    connections = await connectionPerWorker(2);
    expect(connections.every((agent) => agent !== undefined)).toBe(true);
    const created = await call(connections[1] as Agent, 'POST', '/resources/v3alpha/organizations', { name: 'After Restart' });
    expect(created.status).toBe(201);
    expect((await call(connections[0] as Agent, 'GET', `/resources/v3alpha/organizations/${created.body.details.id}`)).body.organization?.organization?.name).toBe('After Restart');
  }, 120_000);

  it('on SIGTERM answers the requests in flight on both workers and exits 0, also when a worker fails while it drains (never an abort)', async () => {
    for (const agent of connections) agent.destroy();
    // Two connections per worker: one request of each worker completes during the drain; worker
    // 1's second one is in flight when worker 1 fails, worker 0's second one completes after that.
    const first = await connectionPerWorker(2);
    const second = await connectionPerWorker(2);
    connections = [...first, ...second];
    const drained = [0, 1].map((worker) => slowCreate(first[worker] as Agent, `Drained Org ${worker}`));
    const cut = slowCreate(second[1] as Agent, 'Cut Org');
    const late = slowCreate(second[0] as Agent, 'Late Drained Org');
    await Promise.all([...drained, cut, late].map((request) => request.handling));

    expect(await connectOnce(node.httpPort)).toBe('accepted'); // the control for the refusal below
    node.process.kill('SIGTERM');
    // Every worker has closed its listen socket (new connections are refused), while the four requests are still in flight.
    await refusedEventually(node.httpPort);
    for (const request of drained) request.finish();
    expect((await Promise.all(drained.map((request) => request.answered))).map((a) => `${a.worker}:${a.status}`)).toEqual(['0:201', '1:201']);

    // Worker 1 fails while it drains (TESSERA_TEST_MODE: SIGUSR2): it cuts its request, closes its
    // sockets and exits; the process does not abort (uWS would, had the thread ended with them open).
    node.process.kill('SIGUSR2');
    await expect(cut.answered).rejects.toThrow();
    late.finish();
    expect(await late.answered).toMatchObject({ worker: '0', status: 201 });
    expect(await node.stop()).toBe(0);
    expect(node.process.signalCode).toBeNull();
    expect(node.logs.some((l) => l.msg === 'worker failed: closing its listeners and exiting' && l.worker === 1)).toBe(true);
    expect(node.logs.some((l) => l.msg === 'worker stopped with a failure' && l.worker === 1 && l.code === 1)).toBe(true);
    expect(node.logs.some((l) => l.msg === 'stopped')).toBe(true);

    // The three acknowledged writes are kept (the node restarted on its data); the cut one never ran.
    const restarted = await startTestNode({ dataDir: node.dataDir });
    try {
      const found = await api(restarted)('POST', '/resources/v3alpha/organizations/_search', [{ name: { name: 'Drained Org', method: 'TEXT_FILTER_METHOD_CONTAINS' } }]);
      expect((found.body.result as { organization: { name: string } }[]).map((o) => o.organization.name).sort()).toEqual(['Drained Org 0', 'Drained Org 1', 'Late Drained Org']);
      const none = await api(restarted)('POST', '/resources/v3alpha/organizations/_search', [{ name: { name: 'Cut Org', method: 'TEXT_FILTER_METHOD_EQUALS' } }]);
      expect(none.body.result ?? []).toEqual([]);
    } finally {
      await restarted.stop();
    }
  }, 180_000);
});

/**
 * A POST creating an organization over `agent` (one keep-alive socket: one worker) whose body is
 * held back: `handling` resolves once the worker handles it (it answered `Expect: 100-continue`),
 * `finish` sends the body, `answered` is the reply (rejected when the connection is cut).
 */
function slowCreate(agent: Agent, name: string): { readonly handling: Promise<void>; finish(): void; readonly answered: Promise<{ status: number; worker: string | undefined }> } {
  const body = JSON.stringify({ name });
  let finish = (): void => undefined;
  let handling!: Promise<void>;
  const answered = new Promise<{ status: number; worker: string | undefined }>((resolve, reject) => {
    const req = httpRequest(
      { agent, host: '127.0.0.1', port: node.httpPort, method: 'POST', path: '/resources/v3alpha/organizations', headers: { host: `localhost:${node.httpPort}`, authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, worker: res.headers['x-tessera-worker'] as string | undefined }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    handling = new Promise((resolveHandling) =>
      req.once('continue', () => {
        finish = () => req.end(body);
        resolveHandling();
      }),
    );
    req.flushHeaders();
  });
  answered.catch(() => undefined); // awaited by the test; a failed test must not leave it unhandled
  return {
    handling,
    finish: () => finish(),
    answered,
  };
}

/**
 * Whether a TCP connection to `port` is accepted, refused, or reset (a connection the kernel
 * queued for a listen socket that closed before accepting it).
 */
function connectOnce(port: number): Promise<'accepted' | 'refused' | 'reset'> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve('refused') : err.code === 'ECONNRESET' ? resolve('reset') : reject(err)));
  });
}

/** Polls until a connection to `port` is refused (with a deadline). */
async function refusedEventually(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await connectOnce(port)) === 'refused') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`port ${port} still accepts connections`);
}
