/**
 * Reads in flight together on PostgreSQL (issue #15; bench/README.md "The visibility map and the
 * position check on PostgreSQL"):
 * for each build of PGCR_MAINS (comma-separated main.js paths, taken in turn for PGCR_ROUNDS
 * rounds), a fresh node (one worker) on its own schema of PGCR_DATABASE_URL seeded with
 * PGCR_ORGS organizations answers PGCR_REQUESTS organization searches (limit 10, by name) and
 * as many GETs of one organization, PGCR_CONCURRENCY in flight, after PGCR_WARMUP uncounted.
 * Prints per build and round the statements the node sent per request
 * (tessera_store_statements), its write system calls per request (/proc/<pid>/io: the HTTP
 * response and each message batch sent to PostgreSQL, so a statement sent in two round trips
 * counts two), its CPU per request (/proc) and p50/p99: the first three do not depend on the
 * machine's load the way latencies do. PGCR_CONCURRENCY=1: one request at a time.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { Cleanup } from './processes.js';
import { closeHttpClient, httpRequest, ORGANIZATIONS_PATH, seedOrganizations, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const MAINS = (env.PGCR_MAINS ?? 'dist/src/cli/main.js').split(',');
const URL = env.PGCR_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORGS = Number(env.PGCR_ORGS ?? 200);
const REQUESTS = Number(env.PGCR_REQUESTS ?? 2000);
const WARMUP = Number(env.PGCR_WARMUP ?? 200);
const CONCURRENCY = Number(env.PGCR_CONCURRENCY ?? 16);
const ROUNDS = Number(env.PGCR_ROUNDS ?? 2);

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

async function measure(node: TesseraNode, send: () => Promise<void>): Promise<string> {
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
  const [s0, c0, w0] = [await statements(node), cpuMs(node.server.pid), writeCalls(node.server.pid)];
  await run(REQUESTS, times);
  const [w1, s1, c1] = [writeCalls(node.server.pid), await statements(node), cpuMs(node.server.pid)];
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  // The statements counter is read once per side through /metrics, which sends none itself.
  return `${((s1 - s0) / REQUESTS).toFixed(2)} statements, ${((w1 - w0) / REQUESTS).toFixed(2)} write calls, ${((c1 - c0) / REQUESTS).toFixed(3)} ms CPU per request; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const schemas: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const main of MAINS) {
        const schema = `pgcr_${Date.now()}_${schemas.length}`;
        schemas.push(schema);
        const node = await startTessera({ main, cpu: undefined, cleanup, defaults: { TESSERA_WORKERS: '1', TESSERA_DATABASE_URL: URL, TESSERA_DATABASE_SCHEMA: schema } });
        const ids = await seedOrganizations(node, ORGS, 'Org');
        const headers = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
        const ok = async (method: string, path: string, body?: string) => {
          const result = await httpRequest(node.origin, method, path, headers, body);
          if (result.status !== 200) throw new Error(`${method} ${path}: HTTP ${result.status}`);
        };
        const searches = await measure(node, () => ok('POST', `${ORGANIZATIONS_PATH}/_search?query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_NAME`, '[]'));
        const gets = await measure(node, () => ok('GET', `${ORGANIZATIONS_PATH}/${ids[ids.length >> 1]!}`));
        console.log(`round ${round}, ${main}, ${CONCURRENCY} in flight:\n  org search, limit 10, by name: ${searches}\n  GET organization: ${gets}`);
        await node.server.stop();
      }
    }
  } finally {
    await cleanup.run();
    closeHttpClient();
    const sql = postgres(URL, { max: 1, onnotice: () => undefined });
    for (const schema of schemas) await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end({ timeout: 5 });
  }
}

await main();
