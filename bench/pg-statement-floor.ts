/**
 * What one PostgreSQL statement costs this process, layer by layer (issue #15): GET organization
 * on PostgreSQL is one statement, the request's position check (`Q.counter`), its row coming from
 * the read cache. In one process, on a scratch schema (`tessera_bench_floor_<time>`, dropped at
 * the end) holding one instance position and one record, blocks of calls one at a time of:
 *
 * - `bare`: a plain postgres.js pool (`max: 1`, only the schema's search_path), the statement
 *   prepared, the same text: the floor, the driver and the socket;
 * - `select1`: the same pool, `SELECT 1` prepared (for comparison with the floor);
 * - `counted`: Tessera's connection options (connectPostgres) and statement counter
 *   (countStatements), readPosition;
 * - `store check`: the opened store: `requestReads(instance).projectionState`, a view per call as
 *   per request (unavailability guard, deadline timer, the read cache's check);
 * - `store get`: the same with `getRecord` of the cached record (check, hit, decode): what GET
 *   organization asks the store.
 *
 * The variants alternate, their order rotated each round; process CPU per call from schedstat
 * (every thread, ns), median over the rounds after the first. The node's extra CPU per GET on
 * PostgreSQL over LMDB comes from bench/search-rows.ts; the difference to `bare` is what the
 * layers above the driver (here and in the node) add. Not part of `npm test`.
 *
 *   npm run build && FLOOR_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/pg-statement-floor.js
 *
 * FLOOR_CALLS (3000) calls per block, FLOOR_ROUNDS (7), FLOOR_WARMUP (5000) calls of each first,
 * FLOOR_VARIANTS (all, comma-separated names) to run a subset. FLOOR_BASELINE=<another build's
 * dist/> adds `baseline check` and `baseline get`: the same two store calls through that build's
 * store (its own node_modules), alternating with this build's, for A/B comparisons.
 */
import postgres from 'postgres';
import type { StoreAdapter } from '../actors/index.js';
import { connectPostgres, openPostgresStore } from '../src/store/postgres-store.js';
import { countStatements } from '../src/store/postgres-statements.js';
import { encodeValue, PREPARED, Q, readPosition } from '../src/store/postgres-queries.js';
import { processCpuNs, threadCpuNs } from './processes.js';

const env = process.env;
const URL_ = env.FLOOR_DATABASE_URL ?? env.TESSERA_TEST_DATABASE_URL;
if (URL_ === undefined || URL_ === '') throw new Error('set FLOOR_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
const CALLS = Number(env.FLOOR_CALLS ?? 3000);
const ROUNDS = Number(env.FLOOR_ROUNDS ?? 7);
const WARMUP = Number(env.FLOOR_WARMUP ?? 5000);
const INSTANCE = 'floor-instance';
const TABLE = 'organizations';
const ROW = 'org-1';

const schema = `tessera_bench_floor_${Date.now()}`;
const admin = postgres(URL_, { max: 1, onnotice: () => undefined });

type Call = () => Promise<unknown>;

async function main(): Promise<void> {
  await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  const store = await openPostgresStore({ url: URL_!, schema });
  const org = { id: ROW, name: 'Organization 1', state: 'active', primaryDomain: 'org-1.example', createdAt: Date.now(), changedAt: Date.now(), sequence: 1, owner: 'floor' };
  await admin.unsafe(`INSERT INTO "${schema}".instance_positions (instance_id, position, created_at) VALUES ($1, 1, 1)`, [INSTANCE]);
  await admin.unsafe(`INSERT INTO "${schema}".records (instance_id, table_name, id, value) VALUES ($1, $2, $3, $4)`, [INSTANCE, TABLE, ROW, encodeValue(org)]);

  const bare = postgres(URL_!, { max: 1, connection: { search_path: `"${schema}"` } });
  const { sql: counted } = countStatements(connectPostgres({ url: URL_!, schema, maxConnections: 1 }));
  const all: Record<string, Call> = {
    bare: () => bare.unsafe(Q.counter, [INSTANCE], PREPARED),
    select1: () => bare.unsafe('SELECT 1', [], PREPARED),
    counted: () => readPosition(counted, INSTANCE),
    'store check': () => store.requestReads!(INSTANCE).projectionState(INSTANCE),
    'store get': async () => {
      const row = await store.requestReads!(INSTANCE).getRecord(INSTANCE, TABLE, ROW);
      if (row === undefined) throw new Error('record missing');
      return row;
    },
  };
  const baseline = env.FLOOR_BASELINE === undefined ? undefined : await openBaseline(env.FLOOR_BASELINE);
  if (baseline !== undefined) {
    all['baseline check'] = () => baseline.requestReads!(INSTANCE).projectionState(INSTANCE);
    all['baseline get'] = async () => {
      const row = await baseline.requestReads!(INSTANCE).getRecord(INSTANCE, TABLE, ROW);
      if (row === undefined) throw new Error('record missing');
      return row;
    };
  }
  const names = env.FLOOR_VARIANTS === undefined ? Object.keys(all) : env.FLOOR_VARIANTS.split(',');
  for (const name of names) if (all[name] === undefined) throw new Error(`FLOOR_VARIANTS: unknown ${name}`);

  for (const name of names) for (let i = 0; i < WARMUP; i++) await all[name]!();
  const samples = new Map(names.map((n) => [n, { process: [] as number[], main: [] as number[], system: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const shift = round % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    const line: string[] = [];
    for (const name of order) {
      const call = all[name]!;
      const p0 = processCpuNs(process.pid);
      const m0 = threadCpuNs(process.pid, process.pid);
      const u0 = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await call();
      const perSystem = process.cpuUsage(u0).system / CALLS;
      const perProcess = (processCpuNs(process.pid) - p0) / 1000 / CALLS;
      const perMain = (threadCpuNs(process.pid, process.pid) - m0) / 1000 / CALLS;
      line.push(`${name} ${perProcess.toFixed(1)}`);
      if (round === 0 && ROUNDS > 1) continue;
      samples.get(name)!.process.push(perProcess);
      samples.get(name)!.main.push(perMain);
      samples.get(name)!.system.push(perSystem);
    }
    console.error(`  round ${round + 1}/${ROUNDS}: ${line.join(' · ')} µs`);
  }
  const median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    const mid = s.length >> 1;
    return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  };
  console.log(`\nProcess CPU per call, µs (median of rounds 2–${ROUNDS}, ${CALLS} calls each; main thread alone; the process's system (kernel) time; every counted round)\n`);
  console.log('| variant | process | main thread | kernel | rounds |');
  console.log('|---|---:|---:|---:|---|');
  for (const name of names) {
    const s = samples.get(name)!;
    console.log(`| ${name} | ${median(s.process).toFixed(1)} | ${median(s.main).toFixed(1)} | ${median(s.system).toFixed(1)} | ${s.process.map((x) => x.toFixed(0)).join(' ')} |`);
  }
  await bare.end({ timeout: 5 });
  await counted.end({ timeout: 5 });
  await store.close();
  await baseline?.close();
}

async function openBaseline(dist: string): Promise<StoreAdapter> {
  const module = (await import(`${dist.replace(/\/$/, '')}/src/store/postgres-store.js`)) as { openPostgresStore: typeof openPostgresStore };
  return module.openPostgresStore({ url: URL_!, schema });
}

try {
  await main();
} finally {
  await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end({ timeout: 5 });
}
