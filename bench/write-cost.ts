/**
 * `npm run bench:write-cost`: what the search indexes cost a write (issue #15: "create
 * organization / create user throughput with the indexes ≥ 0.8× today's"). Per store, two nodes
 * of this build run side by side: one with the index catalog, one with
 * TESSERA_BENCH_WITHOUT_INDEXES (the empty catalog: no index entries, summaries or row counts
 * written; searches refused). Both are seeded with WRITE_COST_SEED organizations and users
 * through the API (index cost grows with depth), then create organization and create user are
 * loaded for WRITE_COST_SECONDS each (authenticated POSTs, WRITE_COST_CONCURRENCY in flight),
 * one node at a time, alternating the order every round (A B, B A, ...) for WRITE_COST_ROUNDS
 * rounds. On PostgreSQL each node has its own schema, ANALYZEd after the seeding as autovacuum
 * would on a production server (the shared test server runs without it; WRITE_COST_ANALYZE=0:
 * not). Prints creates/s, node CPU per create (and its PostgreSQL backends' CPU), and the
 * ratio with ÷ without of the medians. Figures in bench/README.md "Write cost of the indexes".
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { backendCpuDelta, openBenchDatabase, type BenchDatabase } from './postgres.js';
import { Cleanup, clockTicksPerSecond, describeError, processCpuSeconds } from './processes.js';
import { closeHttpClient, httpRequest, ORGANIZATIONS_PATH, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const SEED = Number(env.WRITE_COST_SEED ?? 10_000);
const SECONDS = Number(env.WRITE_COST_SECONDS ?? env.BENCH_DURATION ?? 5);
const ROUNDS = Number(env.WRITE_COST_ROUNDS ?? 3);
const CONCURRENCY = Number(env.WRITE_COST_CONCURRENCY ?? 16);
const USERS_PATH = '/resources/v3alpha/users';
const TICKS = clockTicksPerSecond();

type Kind = 'organization' | 'user';
const KINDS: readonly Kind[] = ['organization', 'user'];

interface Side {
  readonly label: 'with indexes' | 'without indexes';
  readonly node: TesseraNode;
  readonly database?: BenchDatabase;
  /** Numbers every create of this node uniquely (names and usernames must not repeat). */
  next: number;
  readonly runs: Record<Kind, Run[]>;
}

interface Run {
  readonly rate: number;
  /** Node CPU per create, ms. */
  readonly cpuMs: number;
  /** CPU of the node's PostgreSQL backends per create, ms (undefined on LMDB or when /proc cannot tell). */
  readonly backendMs: number | undefined;
}

function create(side: Side, kind: Kind): Promise<void> {
  const i = side.next++;
  const body =
    kind === 'organization'
      ? { name: `Write Cost Org ${String(i).padStart(7, '0')}` }
      : { human: { username: `write.cost${i}`, profile: { givenName: 'Write', familyName: `Cost ${i}` }, email: { address: `write.cost${i}@example.com` } } };
  const path = kind === 'organization' ? ORGANIZATIONS_PATH : USERS_PATH;
  return httpRequest(side.node.origin, 'POST', path, { authorization: `Bearer ${side.node.adminToken}`, 'content-type': 'application/json' }, JSON.stringify(body)).then((result) => {
    if (result.status !== 201) throw new Error(`${side.label}: create ${kind}: HTTP ${result.status} ${result.body.slice(0, 300)}`);
  });
}

/** `count` creates, CONCURRENCY in flight. */
async function seed(side: Side, kind: Kind, count: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await create(side, kind);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

/** Creates for SECONDS, CONCURRENCY in flight; creates per second and CPU per create. */
async function measure(side: Side, kind: Kind): Promise<Run> {
  const pid = side.node.server.pid;
  const b0 = await side.database?.backendCpu();
  const c0 = processCpuSeconds(pid, TICKS);
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await create(side, kind);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = processCpuSeconds(pid, TICKS) - c0;
  const b1 = await side.database?.backendCpu();
  const backendMs = b0 === undefined || b1 === undefined ? undefined : (backendCpuDelta(b0, b1) * 1000) / done;
  return { rate: done / elapsed, cpuMs: (cpu * 1000) / done, backendMs };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function startSide(label: Side['label'], database: BenchDatabase | undefined, cleanup: Cleanup): Promise<Side> {
  const defaults: Record<string, string> = { TESSERA_SIGNING_ALGORITHM: 'ES256' };
  if (label === 'without indexes') defaults.TESSERA_BENCH_WITHOUT_INDEXES = 'true';
  if (database !== undefined) Object.assign(defaults, { TESSERA_DATABASE_URL: database.url, TESSERA_DATABASE_SCHEMA: database.schema, PGAPPNAME: database.appName });
  const node = await startTessera({ main: 'dist/src/cli/main.js', cpu: undefined, cleanup, defaults });
  return { label, node, ...(database === undefined ? {} : { database }), next: 0, runs: { organization: [], user: [] } };
}

/** Seeds both nodes (in alternating chunks), then the alternating rounds; returns the report lines. */
async function runStore(store: string, sides: readonly [Side, Side]): Promise<string[]> {
  const seedStart = performance.now();
  const CHUNK = 2000;
  for (const kind of KINDS) {
    for (let from = 0; from < SEED; from += CHUNK) for (const side of sides) await seed(side, kind, Math.min(CHUNK, SEED - from));
  }
  const analyzed: number[] = [];
  for (const side of sides) if (side.database !== undefined && env.WRITE_COST_ANALYZE !== '0') analyzed.push(await analyze(side.database));
  const seeded = `seeded ${SEED} organizations and ${SEED} users on each node in ${((performance.now() - seedStart) / 1000).toFixed(0)} s${analyzed.length === 0 ? '' : `, then ANALYZE of each schema (${analyzed.map((t) => `${t.toFixed(1)} s`).join(', ')})`}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  process.stderr.write(`  ${store}: ${seeded}\n`);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? sides : ([sides[1], sides[0]] as const);
    for (const kind of KINDS) {
      for (const side of order) {
        const run = await measure(side, kind);
        side.runs[kind].push(run);
        process.stderr.write(`  ${store} round ${round + 1} ${kind} ${side.label}: ${run.rate.toFixed(0)}/s, node CPU ${run.cpuMs.toFixed(2)} ms per create\n`);
      }
    }
  }
  const [withIdx, without] = sides;
  const lines = [`\n### ${store}\n`, `| create | with indexes /s (runs) | without /s (runs) | ratio of medians (target ≥ 0.8) | node CPU ms per create with / without | PostgreSQL backends CPU ms per create with / without |`, '|---|---|---|---|---|---|'];
  for (const kind of KINDS) {
    const rates = (s: Side) => s.runs[kind].map((r) => r.rate.toFixed(0)).join(' / ');
    const ratio = median(withIdx.runs[kind].map((r) => r.rate)) / median(without.runs[kind].map((r) => r.rate));
    const cpu = (s: Side) => median(s.runs[kind].map((r) => r.cpuMs)).toFixed(2);
    const backend = (s: Side) => {
      const values = s.runs[kind].map((r) => r.backendMs).filter((v): v is number => v !== undefined);
      return values.length === 0 ? '—' : median(values).toFixed(2);
    };
    lines.push(`| ${kind} | ${rates(withIdx)} | ${rates(without)} | **${ratio.toFixed(2)}** | ${cpu(withIdx)} / ${cpu(without)} | ${backend(withIdx)} / ${backend(without)} |`);
  }
  lines.push('', `- ${seeded}`, `- ${ROUNDS} rounds of ${SECONDS} s per create kind and node, ${CONCURRENCY} in flight, order alternating by round; load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  return lines;
}

/** ANALYZE of every table of the node's schema; returns the seconds it took. */
async function analyze(database: BenchDatabase): Promise<number> {
  const sql = postgres(database.url, { max: 1, onnotice: () => undefined, connection: { search_path: `"${database.schema}"` } });
  try {
    const t0 = performance.now();
    const tables = await sql<{ tablename: string }[]>`SELECT tablename FROM pg_tables WHERE schemaname = ${database.schema}`;
    for (const { tablename } of tables) await sql.unsafe(`ANALYZE "${tablename}"`);
    return (performance.now() - t0) / 1000;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function main(): Promise<void> {
  if (env.TESSERA_BENCH_WITHOUT_INDEXES !== undefined) throw new Error('unset TESSERA_BENCH_WITHOUT_INDEXES: this bench sets it on one node of each pair');
  const stores = (env.WRITE_COST_STORES ?? 'lmdb,postgres').split(',').map((s) => s.trim());
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const out: string[] = [`## Write cost of the indexes (${new Date().toISOString()})`];
  try {
    for (const store of stores) {
      if (store !== 'lmdb' && store !== 'postgres') throw new Error(`WRITE_COST_STORES: unknown store ${store} (lmdb, postgres)`);
      const runId = `wc${Date.now()}`;
      const databases: (BenchDatabase | undefined)[] = [undefined, undefined];
      if (store === 'postgres') {
        for (const [i, tag] of ['idx', 'noidx'].entries()) {
          const opened = await openBenchDatabase(env, `${runId}_${tag}`, TICKS, cleanup);
          if (typeof opened === 'string') {
            out.push(`\n### postgres\n\nskipped: ${opened}`);
            break;
          }
          databases[i] = opened;
        }
        if (databases[1] === undefined) continue;
      }
      const sides = [await startSide('with indexes', databases[0], cleanup), await startSide('without indexes', databases[1], cleanup)] as const;
      try {
        out.push(...(await runStore(store, sides)));
      } finally {
        for (const side of sides) await side.node.server.stop();
      }
    }
  } catch (error) {
    out.push(`\nFAILED: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    process.stdout.write(`${out.join('\n')}\n`);
    await cleanup.run();
    closeHttpClient();
  }
}

await main();
