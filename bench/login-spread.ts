/**
 * Logins spread over a node's workers (issue 15): a session by login name (`POST /sessions`,
 * the login UI's user lookup and the session's append), each on a new connection, so the
 * kernel spreads them over the workers as it does a browser's (the scale bench sends its
 * samples on one keep-alive connection, so one worker serves them all). PostgreSQL, the node's
 * default workers. Prints per build: the logins each worker served, the latency p50 / p99 and the
 * statements per login (`tessera_store_statements`).
 *
 * `SPREAD_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/login-spread.js`
 * SPREAD_MAINS: comma-separated main.js of the builds to compare, alternating (default this
 * build); SPREAD_USERS (default 600, created through the API, the first SPREAD_WARMUP = 100 log
 * in first, uncounted); SPREAD_ROUNDS (default 2). Each build runs on its own schema, dropped at
 * the end. SPREAD_NODES (default 1): that many nodes on the one schema, the logins alternating
 * between them (each node's workers as above), the statements summed over the nodes.
 */
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { dropSchemas } from './postgres.js';
import { Cleanup } from './processes.js';
import { closeHttpClient, httpRequest, startTessera, TESSERA_HOST_HEADER, type TesseraNode } from './tessera.js';

const env = process.env;
const DATABASE_URL = env.SPREAD_DATABASE_URL;
const MAINS = (env.SPREAD_MAINS ?? 'dist/src/cli/main.js').split(',');
const USERS = Number(env.SPREAD_USERS ?? 600);
const WARMUP = Number(env.SPREAD_WARMUP ?? 100);
const ROUNDS = Number(env.SPREAD_ROUNDS ?? 2);
const NODES = Number(env.SPREAD_NODES ?? 1);

/** One request on a connection of its own (no agent): status, body and the worker that answered. */
function onNewConnection(node: TesseraNode, method: string, path: string, body: string): Promise<{ status: number; body: string; worker: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, node.origin),
      { method, agent: false, headers: { host: TESSERA_HOST_HEADER, authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), worker: String(res.headers['x-tessera-worker'] ?? '?') }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function statements(node: TesseraNode): Promise<number> {
  const result = await httpRequest(node.origin, 'GET', '/metrics', { authorization: `Bearer ${node.adminToken}` });
  return Number(/^tessera_store_statements (\d+)/m.exec(result.body)?.[1] ?? Number.NaN);
}

async function run(main: string, schema: string, cleanup: Cleanup): Promise<string> {
  const nodes: TesseraNode[] = [];
  // The further nodes start on the first one's data directory: its master key and admin token.
  for (let n = 0; n < NODES; n++) nodes.push(await startTessera({ main, cpu: undefined, cleanup, defaults: { TESSERA_DATABASE_URL: DATABASE_URL!, TESSERA_DATABASE_SCHEMA: schema }, ...(n === 0 ? {} : { dataDir: nodes[0]!.dataDir }) }));
  const node = nodes[0]!;
  const headers = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  for (let i = 0; i < USERS; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, USERS - i) }, async (_, k) => {
        const n = i + k;
        const body = JSON.stringify({ human: { username: `spread.user-${n}`, profile: { givenName: 'S', familyName: 'U' }, email: { address: `s${n}@example.com`, isVerified: true } } });
        const created = await httpRequest(node.origin, 'POST', '/resources/v3alpha/users', headers, body);
        if (created.status !== 201) throw new Error(`create user: HTTP ${created.status} ${created.body}`);
      }),
    );
  }
  const login = async (n: number) => {
    const result = await onNewConnection(nodes[n % NODES]!, 'POST', '/resources/v3alpha/sessions', JSON.stringify({ checks: { user: { loginName: `spread.user-${n}` } } }));
    if (result.status !== 201) throw new Error(`login: HTTP ${result.status} ${result.body}`);
    return `${n % NODES}.${result.worker}`;
  };
  const statementsSent = async () => {
    let sum = 0;
    for (const each of nodes) sum += await statements(each);
    return sum;
  };
  for (let n = 0; n < WARMUP; n++) await login(n);
  const times: number[] = [];
  const workers = new Map<string, number>();
  const s0 = await statementsSent();
  // The last created first: users whose creation is longest past, as a cold user meets the actors.
  for (let n = USERS - 1; n >= WARMUP; n--) {
    const t0 = performance.now();
    const worker = await login(n);
    times.push(performance.now() - t0);
    workers.set(worker, (workers.get(worker) ?? 0) + 1);
  }
  const s1 = await statementsSent();
  for (const each of nodes) await each.server.stop();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  const served = [...workers].sort().map(([w, n]) => `node.worker ${w}: ${n}`).join(', ');
  return `${times.length} logins (${served}): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ${((s1 - s0) / times.length).toFixed(2)} statements per login`;
}

async function main(): Promise<void> {
  if (DATABASE_URL === undefined) throw new Error('SPREAD_DATABASE_URL is required (a PostgreSQL server the bench may create schemas in)');
  const cleanup = new Cleanup();
  const schemas: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const main of MAINS) {
        const schema = `tessera_spread_${Date.now()}_${schemas.length}`;
        schemas.push(schema);
        console.log(`round ${round}, ${main}: ${await run(main, schema, cleanup)}`);
      }
    }
  } finally {
    await cleanup.run();
    closeHttpClient();
    await dropSchemas(DATABASE_URL, schemas);
  }
}

await main();
