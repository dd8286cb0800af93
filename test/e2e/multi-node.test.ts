/**
 * Several Tessera nodes on one PostgreSQL database (issue 7): separate processes on separate
 * ports sharing a fresh schema and master key, called as a load balancer would (one Host).
 * Concurrent writes to one organization from two nodes lose nothing; a node's next read after
 * another node's write sees it at once, request cache or not (#15); another node sees a new
 * target, a rotated signing key, a changed execution and a blocked instance within the documented delay (polled with a deadline, never
 * timed) and counts the change in its change-feed lag histogram; tokens, refresh tokens and
 * assertion ids are shared; and a node killed with SIGKILL under load loses no acknowledged
 * write while the other keeps serving. Every node runs two worker threads (TESSERA_WORKERS=2).
 * Skipped, with the
 * reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import { createPrivateKey, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { addMachineKey, basic, createApp, createMachineClient, createProject } from './oidc.fixture.js';
import { codeRequest, getPage, startLogin } from './login-flow.fixture.js';
import { createFlowTenant } from './oidc-code-flow.fixture.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';
import { startTargetServer } from './targets.fixture.js';

const postgresVerdict = await meet(POSTGRES);
const title = 'several nodes on one PostgreSQL database';
/** The change feed's worst case is its 5 s re-check; the deadline leaves room on a busy machine. */
const DEADLINE_MS = 20_000;
/** Both nodes behind one name, as behind a load balancer: one issuer, one instance. */
const HOST = 'localhost';
const TOKEN = '/oauth/v2/token';
/** Worker threads per node: the cluster paths (change feed, shared counters, one deliverer) with several workers per node. */
const WORKERS_PER_NODE = 2;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** A JSON call with the admin token, through the shared Host. */
const call = (node: TestNode, admin: TestNode) => (method: string, path: string, body?: unknown) => api(node, admin.adminToken)(method, path, body, { host: HOST });

/** A form POST through the shared Host (token, introspection, revocation). */
async function form(node: TestNode, path: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await api(node, '')('POST', path, new URLSearchParams(params).toString(), { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers });
  return { status: res.status, body: (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Record<string, any> };
}

/** Polls until `check` holds; fails with the last value once the deadline passes. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeIfMet(postgresVerdict, title, () => {
  const schema = freshSchemaName();
  let env: Record<string, string>;
  let ops: Awaited<ReturnType<typeof createSystemUserKey>>;
  let a: TestNode;
  let b: TestNode;
  let instanceId: string;

  beforeAll(async () => {
    ops = await createSystemUserKey('multi-node-ops');
    env = {
      TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '',
      TESSERA_DATABASE_SCHEMA: schema,
      TESSERA_MASTERKEY: 'b'.repeat(64),
      TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]),
      TESSERA_DEFAULT_FEATURES: 'token_exchange,multitenancy_resources_api',
      // Every node with two worker threads (the default on a 2-core machine is one per usable core).
      TESSERA_WORKERS: String(WORKERS_PER_NODE),
    };
    a = await startTestNode({ env });
    // Two nodes of three threads each: slow to start on a loaded 2-core machine (the generous hook timeout).
    // Node B starts on the initialised database: first run finds the setup done. It shares A's
    // data directory only for the admin token file A wrote (the data itself is in PostgreSQL).
    b = await startTestNode({ env, dataDir: a.dataDir });
    instanceId = String(a.logs.find((l) => l.msg === 'first run: admin token written')?.instanceId);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    a?.cleanup();
    await dropSchema(schema);
  });

  it('serves one instance from both nodes: the second start reuses the first setup', async () => {
    for (const node of [a, b]) expect(node.logs.filter((l) => l.msg === 'worker started').map((l) => l.worker)).toEqual(expect.arrayContaining([0, 1]));
    expect(b.logs.some((l) => l.msg === 'first run: admin token written')).toBe(false);
    const [fromA, fromB] = await Promise.all([call(a, a)('GET', '/resources/v3alpha/organizations/_instance_default'), call(b, a)('GET', '/resources/v3alpha/organizations/_instance_default')]);
    expect(fromB.status).toBe(200);
    expect(fromB.body).toEqual(fromA.body);
  });

  it('loses no update when both nodes write to the same organization at once', async () => {
    const created = await call(a, a)('POST', '/resources/v3alpha/organizations', { name: 'Contended Org' });
    expect(created.status).toBe(201);
    const orgId = String(created.body.details.id);
    const add = (node: TestNode, domain: string) => call(node, a)('POST', `/resources/v3alpha/domains?ctx.orgId=${orgId}`, { domain });
    const attempts = Array.from({ length: 20 }, (_, i) => [
      { node: 'a', domain: `a${i}.contended.test`, res: add(a, `a${i}.contended.test`) },
      { node: 'b', domain: `b${i}.contended.test`, res: add(b, `b${i}.contended.test`) },
    ]).flat();
    const results = await Promise.all(attempts.map(async (x) => ({ ...x, res: await x.res })));
    // Under contention a command may give up (409 store.contention); it then wrote nothing.
    for (const r of results.filter((x) => x.res.status !== 201)) {
      expect({ status: r.res.status, code: r.res.body.details?.[0]?.id }).toEqual({ status: 409, code: 'store.contention' });
    }
    const acknowledged = results.filter((x) => x.res.status === 201);
    expect(new Set(acknowledged.map((x) => x.node))).toEqual(new Set(['a', 'b']));

    for (const node of [a, b]) {
      const listed = await call(node, a)('POST', '/resources/v3alpha/domains/_search', [{ orgId: { id: orgId } }]);
      expect(listed.status).toBe(200);
      const domains = (listed.body.result as { domain: string }[]).map((d) => d.domain).filter((d) => d.endsWith('.contended.test'));
      expect(domains.sort()).toEqual(acknowledged.map((x) => x.domain).sort());
    }
    // Both nodes' caches of the organization are current: a further write from each succeeds at once.
    expect((await add(a, 'late-a.contended.test')).status).toBe(201);
    expect((await add(b, 'late-b.contended.test')).status).toBe(201);
  });

  it("answers node B's next read with node A's write at once, although B served the old row from its request cache before", async () => {
    const created = await call(a, a)('POST', '/resources/v3alpha/organizations', { name: 'Renamed Org' });
    expect(created.status).toBe(201);
    const orgId = String(created.body.details.id);
    const get = () => call(b, a)('GET', `/resources/v3alpha/organizations/${orgId}`);
    const byName = (name: string) => call(b, a)('POST', '/resources/v3alpha/organizations/_search', [{ name: { name, method: 'TEXT_FILTER_METHOD_EQUALS' } }]);
    // Control: B reads the row twice (the second time from its cache) and finds it by its name.
    for (let i = 0; i < 2; i += 1) expect((await get()).body.organization?.organization?.name).toBe('Renamed Org');
    expect((await byName('Renamed Org')).body.result?.map((o: { details: { id: string } }) => o.details.id)).toEqual([orgId]);
    const patched = await call(a, a)('PATCH', `/resources/v3alpha/organizations/${orgId}`, { name: 'Renamed Org 2' });
    expect(patched.status).toBe(200);
    // No waiting: B's very next requests see A's committed write (no change-feed delay on this path).
    const after = await get();
    expect({ status: after.status, name: after.body.organization?.organization?.name, sequence: after.body.organization?.details?.sequence }).toEqual({ status: 200, name: 'Renamed Org 2', sequence: patched.body.details.sequence });
    expect((await byName('Renamed Org 2')).body.result?.map((o: { details: { id: string } }) => o.details.id)).toEqual([orgId]);
    expect((await byName('Renamed Org')).body.result ?? []).toEqual([]);
  });

  it("shows node A's branding change on node B's login page once the change feed brings it (instance read state)", async () => {
    const redirectUri = 'http://127.0.0.1:9/cb';
    expect((await call(a, a)('PATCH', '/settings/v3alpha/features', { multitenancy_settings: true })).status).toBe(200); // the branding API
    const tenant = await createFlowTenant(a, redirectUri);
    const started = await startLogin(b, codeRequest(b, tenant.clientId, redirectUri).url);
    const colorOn = async (node: TestNode) => {
      const page = await getPage(node, started.location, started.jar.header());
      return { status: page.status, color: /--primary-color:(#[0-9a-f]{6})/i.exec(page.text)?.[1] };
    };
    const setColor = async (color: string) => {
      const set = await call(a, a)('PATCH', '/settings/v3alpha/branding', { primaryColor: { set: color } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
    };
    await setColor('#123456');
    // Control: B shows the first color (and now holds it in its read state) — then A changes it.
    expect(await eventually(() => colorOn(b), (page) => page.color === '#123456')).toEqual({ status: 200, color: '#123456' });
    expect(await colorOn(b)).toEqual({ status: 200, color: '#123456' });
    await setColor('#654321');
    expect(await colorOn(a)).toEqual({ status: 200, color: '#654321' }); // A's own write: at once
    expect(await eventually(() => colorOn(b), (page) => page.color === '#654321')).toEqual({ status: 200, color: '#654321' });
  });

  it("returns a target created on node A from node B's search", async () => {
    const name = `target-${randomUUID()}`;
    const created = await call(a, a)('POST', '/resources/v3alpha/targets', { name, restWebhook: { url: 'http://127.0.0.1:9/hook' }, timeout: '10s' });
    expect(created.status).toBe(201);
    const found = await eventually(
      () => call(b, a)('POST', '/resources/v3alpha/targets/_search', [{ name: { name, method: 'TEXT_FILTER_METHOD_EQUALS' } }]),
      (res) => res.status === 200 && (res.body.result as unknown[] | undefined)?.length === 1,
    );
    expect(found.status).toBe(200);
    expect((found.body.result as { details: { id: string } }[]).map((t) => t.details.id)).toEqual([created.body.details.id]);
  });

  it("signs node B's next tokens with the key node A rotated to (the key ring B's instance state held is dropped by the change feed)", async () => {
    const bot = await createMachineClient(a, `mn-rotation-${randomUUID().slice(0, 8)}`, 'JWT');
    const kidOf = async (node: TestNode) => {
      const res = await form(node, TOKEN, { grant_type: 'client_credentials', scope: 'openid' }, basic(bot.clientId, bot.secret));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return String(decodeProtectedHeader(String(res.body.access_token)).kid);
    };
    // Control: both nodes sign with the same key, and B now holds that ring.
    const before = await kidOf(b);
    expect(await kidOf(a)).toBe(before);
    expect(await kidOf(b)).toBe(before);
    const rotated = await call(a, a)('POST', '/resources/v3alpha/web_keys/_rotate', {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const after = await kidOf(a); // A's own append: at once
    expect(after).not.toBe(before);
    expect(await eventually(() => kidOf(b), (kid) => kid === after)).toBe(after);
  });

  it("accepts a secret generated on node A on node B at once, and refuses the old one on B once the change arrives (the client B held)", async () => {
    const bot = await createMachineClient(a, `mn-secret-${randomUUID().slice(0, 8)}`, 'JWT');
    const tokenOn = async (node: TestNode, secret: string) => (await form(node, TOKEN, { grant_type: 'client_credentials', scope: 'openid' }, basic(bot.clientId, secret))).status;
    // Control: both nodes accept the first secret, and B now holds the client.
    expect(await tokenOn(a, bot.secret)).toBe(200);
    expect(await tokenOn(b, bot.secret)).toBe(200);
    expect(await tokenOn(b, bot.secret)).toBe(200);
    const rotate = async () => {
      const rotated = await call(a, a)('POST', `/resources/v3alpha/users/${bot.userId}/_generate_secret`);
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      return String(rotated.body.clientSecret);
    };
    // Rotated on A, only the old secret presented on B: B refuses it once the change feed drops what it held.
    const second = await rotate();
    expect(await tokenOn(a, bot.secret)).toBe(401); // A's own append: at once
    expect(await eventually(() => tokenOn(b, bot.secret), (status) => status === 401)).toBe(401);
    expect(await tokenOn(b, second)).toBe(200);
    // Rotated again on A, the new secret presented on B at once: accepted (B re-reads the held client before refusing).
    const third = await rotate();
    expect(await tokenOn(b, third)).toBe(200);
    expect(await tokenOn(b, second)).toBe(401);
  });

  it("applies an execution set on node A to node B's calls, and its removal too (the execution plan B's instance state held)", async () => {
    const server = await startTargetServer();
    const createOrg = '/platform.resources.org.v3alpha.PlatformOrganizations/CreateOrganization';
    const executionId = `request${createOrg}`;
    const executions = '/resources/v3alpha/executions';
    /** Creates an organization on B; whether B's request execution called the target with it. */
    const hookedOnB = async () => {
      const name = `Hooked ${randomUUID()}`;
      expect((await call(b, a)('POST', '/resources/v3alpha/organizations', { name })).status).toBe(201);
      return server.callsTo('/mn-hook').some((c) => c.json?.request?.organization?.name === name);
    };
    try {
      const target = await call(a, a)('POST', '/resources/v3alpha/targets', { name: `hook-${randomUUID()}`, restWebhook: { url: server.url('/mn-hook') }, timeout: '5s' });
      expect(target.status).toBe(201);
      expect(await hookedOnB()).toBe(false); // B holds the instance's plan, without the execution
      expect((await call(a, a)('POST', executions, { condition: { request: { method: createOrg } }, targets: [target.body.details.id] })).status).toBeLessThan(300);
      expect(await eventually(hookedOnB, (hooked) => hooked)).toBe(true);
      expect((await call(a, a)('DELETE', `${executions}/${encodeURIComponent(executionId)}`)).status).toBe(200);
      expect(await eventually(hookedOnB, (hooked) => !hooked)).toBe(false);
    } finally {
      await call(a, a)('DELETE', `${executions}/${encodeURIComponent(executionId)}`);
      await server.close();
    }
  });

  it("measures on node B how long node A's write took to reach it (change-feed lag histogram)", async () => {
    const applied = async (node: TestNode) => Number(/^tessera_change_feed_lag_seconds_count (\d+)$/m.exec(String((await api(node, '')('GET', '/metrics')).body))?.[1] ?? -1);
    const before = await applied(b);
    expect(before).toBeGreaterThanOrEqual(0); // the histogram is exported
    expect((await call(a, a)('POST', '/resources/v3alpha/organizations', { name: `Lagged ${randomUUID()}` })).status).toBe(201);
    expect(await eventually(() => applied(b), (n) => n > before)).toBeGreaterThan(before);
  });

  it("applies an instance block made on node A to node B's requests (tenant directory via the change feed)", async () => {
    const sys = systemApi(a, ops);
    const probe = () => call(b, a)('GET', '/resources/v3alpha/organizations/_instance_default');
    expect((await probe()).status).toBe(200); // B's directory holds the instance
    expect((await sys('POST', `/resources/v3alpha/instances/${instanceId}/_limit`, { block: true })).status).toBe(200);
    try {
      const blocked = await eventually(probe, (res) => res.status === 429);
      expect({ status: blocked.status, code: blocked.body.details?.[0]?.id }).toEqual({ status: 429, code: 'instance.blocked' });
    } finally {
      expect((await sys('POST', `/resources/v3alpha/instances/${instanceId}/_limit`, { block: false })).status).toBe(200);
    }
    expect((await eventually(probe, (res) => res.status === 200)).status).toBe(200);
  });

  it('introspects, refreshes and revokes on node B what node A issued; A then sees it inactive', async () => {
    const bot = await createMachineClient(a, 'mn-bot', 'BEARER');
    const projectId = await createProject(a, 'Multi Node Project');
    const app = await createApp(a, projectId, 'Multi Node App', {
      oidc: {
        appType: 'OIDC_APP_TYPE_WEB',
        redirectUris: ['https://mn.example.com/cb'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE'],
        authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      },
    });
    const appAuth = basic(app.clientId, app.secret ?? '');
    const issued = await form(a, TOKEN, { grant_type: 'client_credentials', scope: `profile offline_access urn:platform:iam:org:project:id:${projectId}:aud` }, basic(bot.clientId, bot.secret));
    expect(issued.status).toBe(200);
    const access = String(issued.body.access_token);
    const introspect = (node: TestNode, token: string) => form(node, '/oauth/v2/introspect', { token }, appAuth);
    expect((await introspect(b, access)).body).toMatchObject({ active: true, sub: bot.userId });

    // A refresh token from an exchange on A, rotated on B.
    const exchanged = await form(a, TOKEN, { grant_type: EXCHANGE, subject_token: access, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }, appAuth);
    expect(exchanged.status).toBe(200);
    const refreshed = await form(b, TOKEN, { grant_type: 'refresh_token', refresh_token: String(exchanged.body.refresh_token) }, appAuth);
    expect(refreshed.status).toBe(200);
    expect((await introspect(a, String(refreshed.body.access_token))).body).toMatchObject({ active: true, sub: bot.userId });
    // Replaying the rotated token on A revokes the family, which B sees too (reuse detection).
    expect((await form(a, TOKEN, { grant_type: 'refresh_token', refresh_token: String(exchanged.body.refresh_token) }, appAuth)).body.error).toBe('invalid_grant');
    expect((await introspect(b, String(refreshed.body.access_token))).body).toEqual({ active: false });

    expect((await form(b, '/oauth/v2/revoke', { token: access }, basic(bot.clientId, bot.secret))).status).toBe(200);
    expect((await introspect(a, access)).body).toEqual({ active: false });
    expect((await introspect(b, access)).body).toEqual({ active: false });
  });

  it('accepts an assertion id (jti) once across both nodes, however the uses race', async () => {
    const bot = await createMachineClient(a, 'mn-jwt-bot', 'JWT');
    const keyFile = await addMachineKey(a, bot.userId);
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuer(bot.userId)
      .setSubject(bot.userId)
      .setAudience(`http://${HOST}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(createPrivateKey(keyFile.key));
    const uses = await Promise.all([a, b, a, b, a, b].map((node) => form(node, TOKEN, { grant_type: JWT_BEARER, assertion, scope: 'openid' })));
    expect(uses.map((u) => u.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(uses.filter((u) => u.status === 400).map((u) => u.body.error)).toEqual(Array(5).fill('invalid_grant'));
  });

  it('delivers each event to an event execution once, although both nodes run a dispatcher', async () => {
    const server = await startTargetServer();
    const executions = '/resources/v3alpha/executions';
    try {
      const target = await call(a, a)('POST', '/resources/v3alpha/targets', { name: `events-${randomUUID()}`, restWebhook: { url: server.url('/events') }, timeout: '5s' });
      expect(target.status).toBe(201);
      // Set on B: A learns of the new plan through the change feed.
      expect((await call(b, a)('POST', executions, { condition: { event: { event: 'org.added' } }, targets: [target.body.details.id] })).status).toBeLessThan(300);
      const ids: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const created = await call(i % 2 === 0 ? a : b, a)('POST', '/resources/v3alpha/organizations', { name: `Evented ${i} ${randomUUID()}` });
        expect(created.status).toBe(201);
        ids.push(String(created.body.details.id));
      }
      const deliveredIds = () => server.callsTo('/events').map((c) => String(c.json?.aggregateID)).filter((id) => ids.includes(id));
      await eventually(async () => deliveredIds(), (got) => ids.every((id) => got.includes(id)));
      // Then until neither node has anything left to deliver, so a second deliverer would have sent its copies.
      const lag = async (node: TestNode) => Number(/tessera_execution_event_lag (\d+)/.exec(String((await api(node, '')('GET', '/metrics')).body))?.[1] ?? -1);
      expect(await eventually(async () => [await lag(a), await lag(b)], (lags) => lags.every((l) => l === 0))).toEqual([0, 0]);
      expect(deliveredIds()).toEqual(ids); // in order, each once
    } finally {
      await call(a, a)('DELETE', `${executions}/${encodeURIComponent('event/org.added')}`);
      await server.close();
    }
  });

  it('keeps serving on one node when the other is killed under load, and loses no acknowledged write', async () => {
    const c = await startTestNode({ env, dataDir: a.dataDir });
    const acknowledged: string[] = [];
    const failuresOnB: number[] = [];
    let killed = false;
    let writesOnBAfterKill = 0;
    let serial = 0;
    const writer = async (node: TestNode, isB: boolean) => {
      while (isB ? writesOnBAfterKill < 20 : !killed) {
        const name = `load-${isB ? 'b' : 'c'}-${(serial += 1)}`;
        const res = await call(node, a)('POST', '/resources/v3alpha/organizations', { name }).catch(() => undefined);
        if (res?.status === 201) {
          acknowledged.push(String(res.body.details.id));
          if (isB && killed) writesOnBAfterKill += 1;
        } else if (isB) {
          failuresOnB.push(res?.status ?? 0);
        }
      }
    };
    const load = [writer(b, true), writer(b, true), writer(c, false), writer(c, false)];
    await eventually(
      async () => acknowledged.length,
      (n) => n >= 30,
    );
    await c.kill();
    killed = true;
    await Promise.all(load);

    expect(failuresOnB).toEqual([]);
    expect(writesOnBAfterKill).toBeGreaterThanOrEqual(20);
    const missing: string[] = [];
    for (const id of acknowledged) {
      if ((await call(b, a)('GET', `/resources/v3alpha/organizations/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  }, 240_000);
});
