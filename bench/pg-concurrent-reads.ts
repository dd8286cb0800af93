/**
 * Reads in flight together on PostgreSQL (issue #15; bench/README.md "The visibility map and the
 * position check on PostgreSQL", "One round trip per search on PostgreSQL"):
 * for each build of PGCR_MAINS (comma-separated main.js paths, taken in turn for PGCR_ROUNDS
 * rounds), a fresh node (one worker) on its own schema of PGCR_DATABASE_URL seeded with
 * PGCR_ORGS organizations (then VACUUM ANALYZEd, as bench/scale.ts does) answers, row by row,
 * PGCR_REQUESTS organization searches (limit 10: by name; name EQUALS, STARTS_WITH, CONTAINS)
 * and GETs of one organization (PGCR_ROWS: only some rows), PGCR_CONCURRENCY in flight, after
 * PGCR_WARMUP uncounted.
 * Prints per build and round the statements the node sent per request
 * (tessera_store_statements), its write system calls per request (/proc/<pid>/io: the HTTP
 * response and each message batch sent to PostgreSQL, so a statement sent in two round trips
 * counts two), its CPU per request (/proc) and p50/p99: the first three do not depend on the
 * machine's load the way latencies do. PGCR_CONCURRENCY=1: one request at a time. PGCR_TURNS=1:
 * the round trips to PostgreSQL per request too, counted by a proxy on the way (bench/tcp-proxy.ts).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { dropSchemas } from './postgres.js';
import { Cleanup } from './processes.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { closeHttpClient, httpRequest, ORGANIZATIONS_PATH, seedOrganizations, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const MAINS = (env.PGCR_MAINS ?? 'dist/src/cli/main.js').split(',');
const DATABASE_URL = env.PGCR_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { hostname: DATABASE_HOST, port: DATABASE_PORT_TEXT } = new URL(DATABASE_URL);
const DATABASE_PORT = DATABASE_PORT_TEXT === '' ? 5432 : Number(DATABASE_PORT_TEXT);
const ORGS = Number(env.PGCR_ORGS ?? 200);
const REQUESTS = Number(env.PGCR_REQUESTS ?? 2000);
const WARMUP = Number(env.PGCR_WARMUP ?? 200);
const CONCURRENCY = Number(env.PGCR_CONCURRENCY ?? 16);
const ROUNDS = Number(env.PGCR_ROUNDS ?? 2);
/** Only the rows whose names contain one of these (comma-separated), e.g. `GET,by name`; default all. */
const ROWS = env.PGCR_ROWS?.split(',');
/**
 * PGCR_TURNS=1: the node reaches PostgreSQL through a proxy that counts round trips
 * (bench/tcp-proxy.ts `turns`: the times a connection's client sent after the server's last
 * answer, or first, so the messages postgres.js sends before it waits count once). The hop adds
 * latency: latencies measured with it are not comparable to runs without.
 */
const TURNS = env.PGCR_TURNS === '1';

/** Write system calls of the process so far (/proc/<pid>/io syscw): HTTP responses and PostgreSQL messages sent. */
function writeCalls(pid: number): number {
  return Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function statements(node: TesseraNode): Promise<number> {
  const body = (await httpRequest(node.origin, 'GET', '/metrics', {})).body;
  return Number(/^tessera_store_statements (\d+)/m.exec(body)?.[1] ?? Number.NaN);
}

async function measure(node: TesseraNode, send: () => Promise<void>, proxy?: Pick<TcpProxy, 'turns'>): Promise<string> {
  const run = async (count: number, times: number[]) => {
    let left = count;
    const worker = async () => {
      while (left-- > 0) {
        const t0 = performance.now();
        await send();
        times.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  await run(WARMUP, []);
  const times: number[] = [];
  const [s0, c0, w0, t0] = [await statements(node), cpuMs(node.server.pid), writeCalls(node.server.pid), proxy?.turns ?? 0];
  await run(REQUESTS, times);
  const [w1, t1, s1, c1] = [writeCalls(node.server.pid), proxy?.turns ?? 0, await statements(node), cpuMs(node.server.pid)];
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  // The statements counter is read once per side through /metrics, which sends none itself.
  const trips = proxy === undefined ? '' : `${((t1 - t0) / REQUESTS).toFixed(2)} round trips, `;
  return `${((s1 - s0) / REQUESTS).toFixed(2)} statements, ${trips}${((w1 - w0) / REQUESTS).toFixed(2)} write calls, ${((c1 - c0) / REQUESTS).toFixed(3)} ms CPU per request; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
}

/** The measured requests: organization searches (limit 10) and a GET, each sent by the returned function. */
function rows(ids: readonly string[], ok: (method: string, path: string, body?: string) => Promise<void>): [string, () => Promise<void>][] {
  let i = 0;
  const name = () => `Org seed ${String((i++ * 7919) % ids.length).padStart(4, '0')}`;
  const byName = (method: string, value: () => string) => () =>
    ok('POST', `${ORGANIZATIONS_PATH}/_search?query.limit=10`, JSON.stringify([{ name: { name: value(), method: `TEXT_FILTER_METHOD_${method}` } }]));
  return [
    ['org search, limit 10, by name', () => ok('POST', `${ORGANIZATIONS_PATH}/_search?query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_NAME`, '[]')],
    ['GET organization', () => ok('GET', `${ORGANIZATIONS_PATH}/${ids[ids.length >> 1]!}`)],
    ['org search, name EQUALS', byName('EQUALS', name)],
    ['org search, name STARTS_WITH', byName('STARTS_WITH', () => name().slice(0, -1))],
    ['org search, name CONTAINS', byName('CONTAINS', () => name().slice(4, -1))],
  ];
}

/** As bench/scale.ts after seeding: statistics and the visibility map (the test server has no autovacuum). */
async function vacuumAnalyze(schema: string): Promise<void> {
  const sql = postgres(DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: `"${schema}"` } });
  try {
    await sql.unsafe('VACUUM ANALYZE index_entries, row_summaries, records, row_counts, unique_claims');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const schemas: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const main of MAINS) {
        const schema = `pgcr_${Date.now()}_${schemas.length}`;
        schemas.push(schema);
        const counter = TURNS ? await startTcpProxy(DATABASE_HOST, DATABASE_PORT) : undefined;
        if (counter !== undefined) cleanup.addProcess('round-trip proxy', () => counter.close(), () => void counter.close());
        const node = await startTessera({ main, cpu: undefined, cleanup, defaults: { TESSERA_WORKERS: '1', TESSERA_DATABASE_URL: counter?.url(DATABASE_URL) ?? DATABASE_URL, TESSERA_DATABASE_SCHEMA: schema } });
        const ids = await seedOrganizations(node, ORGS, 'Org');
        const headers = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
        const ok = async (method: string, path: string, body?: string) => {
          const result = await httpRequest(node.origin, method, path, headers, body);
          if (result.status !== 200) throw new Error(`${method} ${path}: HTTP ${result.status}`);
        };
        await vacuumAnalyze(schema);
        const lines: string[] = [];
        for (const [name, send] of rows(ids, ok)) if (ROWS === undefined || ROWS.some((r) => name.includes(r))) lines.push(`  ${name}: ${await measure(node, send, counter)}`);
        console.log(`round ${round}, ${main}, ${CONCURRENCY} in flight:\n${lines.join('\n')}`);
        await node.server.stop();
      }
    }
  } finally {
    await cleanup.run();
    closeHttpClient();
    await dropSchemas(DATABASE_URL, schemas);
  }
}

await main();
