/**
 * What a returned row costs the node, by store (issue #15: PostgreSQL's searches within 2× of
 * LMDB's). One one-worker node per store (`ROWS_STORES`, LMDB and/or PostgreSQL), organizations
 * seeded through the API, then rounds of one request at a time: GET organization and the
 * organization search with no filter at each limit of `ROWS_LIMITS` (the same statement on
 * PostgreSQL, readIndexPage), the order reversed every other round. Per request: the node's CPU
 * over all its threads (/proc/<pid>/task/<tid>/schedstat, ns) and, on PostgreSQL, its backends'
 * CPU (/proc, clock ticks, so only over a whole block); the table gives the medians over the
 * rounds after the first and the slope per row between the smallest and the largest limit.
 * CPU per request depends less on the machine's load than latency does, but not nothing: run it
 * quiet for figures. Not part of `npm test`.
 *
 *   npm run build && ROWS_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/search-rows.js
 */
import { fileURLToPath } from 'node:url';
import { backendCpuDelta, openBenchDatabase, type BenchDatabase } from './postgres.js';
import { Cleanup, clockTicksPerSecond, processCpuNs } from './processes.js';
import { closeHttpClient, httpRequest, ORGANIZATIONS_PATH, seedOrganizations, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const ORGS = Number(env.ROWS_ORGS ?? 200);
const LIMITS = (env.ROWS_LIMITS ?? '1,10,50').split(',').map(Number);
const REQUESTS = Number(env.ROWS_REQUESTS ?? 400);
const WARMUP = Number(env.ROWS_WARMUP ?? 1500);
const ROUNDS = Number(env.ROWS_ROUNDS ?? 5);
const STORES = (env.ROWS_STORES ?? (env.ROWS_DATABASE_URL === undefined ? 'lmdb' : 'lmdb,postgres')).split(',') as ('lmdb' | 'postgres')[];

for (const [name, value] of Object.entries({ ROWS_ORGS: ORGS, ROWS_REQUESTS: REQUESTS, ROWS_WARMUP: WARMUP, ROWS_ROUNDS: ROUNDS })) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got ${String(value)}`);
}
if (LIMITS.length < 2 || LIMITS.some((l) => !Number.isInteger(l) || l < 1 || l > ORGS)) throw new Error(`ROWS_LIMITS needs two or more limits from 1 to ROWS_ORGS (${ORGS})`);
for (const store of STORES) if (store !== 'lmdb' && store !== 'postgres') throw new Error(`ROWS_STORES: unknown store ${String(store)}`);

interface Row {
  readonly label: string;
  readonly rows: number;
  readonly send: (node: TesseraNode) => Promise<number>;
}

function rowsOf(node: TesseraNode, orgId: string): Row[] {
  const auth = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  const get: Row = {
    label: 'GET organization',
    rows: 1,
    send: async (n) => (await httpRequest(n.origin, 'GET', `${ORGANIZATIONS_PATH}/${orgId}`, auth)).status,
  };
  return [
    get,
    ...LIMITS.map((limit) => ({
      label: `search, limit ${limit}`,
      rows: limit,
      send: async (n: TesseraNode) => (await httpRequest(n.origin, 'POST', `${ORGANIZATIONS_PATH}/_search?query.limit=${limit}`, auth, '[]')).status,
    })),
  ];
}

/** Node CPU and backend CPU per request (µs) of one block of `count` requests. */
async function block(node: TesseraNode, row: Row, count: number, database: BenchDatabase | undefined): Promise<{ nodeUs: number; backendUs: number | undefined }> {
  const backendBefore = await database?.backendCpu();
  const before = processCpuNs(node.server.pid);
  for (let i = 0; i < count; i++) {
    const status = await row.send(node);
    if (status !== 200) throw new Error(`${row.label}: HTTP ${status}`);
  }
  const nodeUs = (processCpuNs(node.server.pid) - before) / 1000 / count;
  const backendAfter = await database?.backendCpu();
  const backendUs = backendBefore === undefined || backendAfter === undefined ? undefined : (backendCpuDelta(backendBefore, backendAfter) * 1e6) / count;
  return { nodeUs, backendUs };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function measureStore(store: 'lmdb' | 'postgres', cleanup: Cleanup): Promise<Map<string, { node: number; backend: number | undefined; rows: number }>> {
  let database: BenchDatabase | undefined;
  const defaults: Record<string, string> = { TESSERA_WORKERS: '1', TESSERA_ACCESS_LOG: 'errors' };
  if (store === 'postgres') {
    const opened = await openBenchDatabase({ BENCH_DATABASE_URL: env.ROWS_DATABASE_URL }, `rows_${Date.now()}`, clockTicksPerSecond(), cleanup);
    if (typeof opened === 'string') throw new Error(`ROWS_STORES names postgres: ${opened}`);
    database = opened;
    Object.assign(defaults, { TESSERA_DATABASE_URL: opened.url, TESSERA_DATABASE_SCHEMA: opened.schema, PGAPPNAME: opened.appName });
  }
  const node = await startTessera({ main: MAIN, cpu: undefined, cleanup, defaults });
  const [orgId] = await seedOrganizations(node, ORGS, 'rows');
  const rows = rowsOf(node, orgId!);
  for (const row of rows) for (let i = 0; i < WARMUP; i++) await row.send(node);
  const samples = new Map(rows.map((r) => [r.label, { node: [] as number[], backend: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    const line: string[] = [];
    for (const row of order) {
      const { nodeUs, backendUs } = await block(node, row, REQUESTS, database);
      line.push(`${row.label} ${nodeUs.toFixed(0)}${backendUs === undefined ? '' : ` (+${backendUs.toFixed(0)} backend)`} µs`);
      if (round === 0 && ROUNDS > 1) continue; // the first round still tiers up
      samples.get(row.label)!.node.push(nodeUs);
      if (backendUs !== undefined) samples.get(row.label)!.backend.push(backendUs);
    }
    console.error(`  ${store} round ${round + 1}/${ROUNDS}: ${line.join(' · ')}`);
  }
  await node.server.stop();
  return new Map(rows.map((r) => {
    const s = samples.get(r.label)!;
    return [r.label, { node: median(s.node), backend: s.backend.length === 0 ? undefined : median(s.backend), rows: r.rows }];
  }));
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  try {
    const results = new Map<string, Awaited<ReturnType<typeof measureStore>>>();
    for (const store of STORES) results.set(store, await measureStore(store, cleanup));
    const first = LIMITS[0]!;
    const last = LIMITS[LIMITS.length - 1]!;
    console.log(`\nNode CPU per request, µs (median of rounds 2–${ROUNDS}, ${REQUESTS} requests each, ${ORGS} organizations, one worker; PostgreSQL backends' CPU in parentheses)\n`);
    console.log(`| request | ${STORES.join(' | ')} |`);
    console.log(`|---|${STORES.map(() => '---:').join('|')}|`);
    for (const label of results.get(STORES[0]!)!.keys()) {
      const cells = STORES.map((s) => {
        const r = results.get(s)!.get(label)!;
        return `${r.node.toFixed(0)}${r.backend === undefined ? '' : ` (${r.backend.toFixed(0)})`}`;
      });
      console.log(`| ${label} | ${cells.join(' | ')} |`);
    }
    const slopes = STORES.map((s) => {
      const r = results.get(s)!;
      return ((r.get(`search, limit ${last}`)!.node - r.get(`search, limit ${first}`)!.node) / (last - first)).toFixed(1);
    });
    console.log(`| per returned row (limit ${first} → ${last}) | ${slopes.join(' | ')} |`);
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

await main();
