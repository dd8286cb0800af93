/**
 * `npm run bench:scale`: searches at scale (issue #15; figures in bench/README.md "Scale").
 * For each store of SCALE_STORES (`lmdb`, `postgres`, or both in one run: `lmdb,postgres`; default
 * `lmdb`, or `postgres` when only SCALE_DATABASE_URL is given), measures the write throughput
 * (create organization, create user) on fresh nodes after SCALE_WRITE_WARMUP uncounted creates,
 * then starts one node per store, seeds SCALE_ORGS organizations and SCALE_USERS users through
 * the public API (batched, SCALE_CONCURRENCY in flight; with SCALE_SEED=import the users come
 * instead in `POST /admin/v1/import` documents of SCALE_IMPORT_USERS users each, into the
 * default organization, one document at a time), and measures latencies with one client,
 * one request at a time (p50/p99 of SCALE_SAMPLES each), each row on every store back to back so
 * the PostgreSQL/LMDB ratio sees one machine load; on PostgreSQL also the statements per request
 * (tessera_store_statements): GET organization, organization searches (limit 10: no filter by name and
 * by creation date, name EQUALS / STARTS_WITH / CONTAINS), user searches (email EQUALS, login
 * name EQUALS, first page by creation date; each after SCALE_WARMUP uncounted requests), a session by login name (the login UI's user
 * lookup) before and after the users exist, and the node's RSS. On PostgreSQL each seeding phase
 * ends with a VACUUM ANALYZE of the node's schema (SCALE_ANALYZE=analyze: ANALYZE alone; 0: neither). With SCALE_BASELINE_MAIN (the
 * main.js of another build, e.g. a `git worktree` of main), the same write throughput is
 * measured on that build in the same run, alternating with this build for SCALE_WRITE_ROUNDS
 * rounds, for the ratio of medians. SCALE_WRITE_ONLY=1 stops after the writes.
 * With PostgreSQL in the run (SCALE_FLOOR=0 turns it off), each row of GET organization and the
 * organization searches is followed by its "PostgreSQL floor": the statement the node sends for
 * that request, built by the store's own code (bench/scale-floor.ts), timed from a bare
 * postgres.js client in this process, one at a time, on the same inputs and sample count.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import postgres from 'postgres';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importDocument } from './import-seed.js';
import { confineMemory, type MemoryLimit } from './memory-limit.js';
import { Cleanup, describeError } from './processes.js';
import { FLOOR_WARMUP, floorRowNote, openStatementFloor, orgSearchStatement, positionCheckStatement, type Floor, type StatementFloor, type StatementOf } from './scale-floor.js';
import { closeHttpClient, httpRequest, memoryOf, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const MAIN = env.SCALE_MAIN ?? 'dist/src/cli/main.js';
const ORGS = Number(env.SCALE_ORGS ?? 100_000);
const USERS = Number(env.SCALE_USERS ?? 1_000_000);
const SAMPLES = Number(env.SCALE_SAMPLES ?? 200);
/**
 * Requests of each row sent before its SCALE_SAMPLES are timed, so the rows measure a serving
 * node, not V8 tiering a fresh process up. GET organization runs ~2x the steady CPU per request
 * for its first ~2,000 requests, and TurboFan still optimised 88, 86, 44, 22, 10, 8, 6, 0
 * functions per 1,000 GETs after that (`--trace-opt`: bench/README.md "Read tail"), each a few ms
 * of a platform thread competing for the two cores: 8,000 is past the last of them.
 */
const WARMUP = Number(env.SCALE_WARMUP ?? 8000);
/** SCALE_TRACE: a file each timed request is appended to as a JSON line (row, node pid, start as epoch ms, duration, and CPU and run-queue wait of the node and of this client during it, from /proc schedstat, read outside the timed span), to line the slow ones up with the node's own timeline. */
const TRACE = env.SCALE_TRACE;
const CONCURRENCY = Number(env.SCALE_CONCURRENCY ?? 16);
const WRITE_SAMPLE = Number(env.SCALE_WRITE_SAMPLE ?? 2000);
/** Creates of each kind sent to a fresh node before the write throughput is counted (JIT, first-use setup). */
const WRITE_WARMUP = Number(env.SCALE_WRITE_WARMUP ?? 200);
/** Rounds of baseline/this write measurements, alternating (with SCALE_BASELINE_MAIN). */
const WRITE_ROUNDS = Number(env.SCALE_WRITE_ROUNDS ?? 2);
/** Only the write throughput (no seeding, no latencies). */
const WRITE_ONLY = env.SCALE_WRITE_ONLY === '1';
/** How the users are seeded: `api` (one create request each) or `import` (admin import documents). */
const SEED = env.SCALE_SEED ?? 'api';
/** Users per import document (SCALE_SEED=import). */
const IMPORT_USERS = Number(env.SCALE_IMPORT_USERS ?? 10_000);
type Store = 'lmdb' | 'postgres';
/** A memory cgroup limit for the measured nodes, MiB (root only; unset: none). */
const MEMORY_LIMIT_MIB = env.SCALE_MEMORY_LIMIT_MIB === undefined || env.SCALE_MEMORY_LIMIT_MIB === '' ? undefined : Number(env.SCALE_MEMORY_LIMIT_MIB);
/**
 * SCALE_RESTART=1: after seeding the organizations, and again after seeding the users, stop the
 * node and start a fresh process on the same data (directory or schema), as a serving node has
 * it (no feed backlog, no seeding garbage, only the pages its reads touch), before measuring;
 * with SCALE_EVICT=1 (LMDB) the data file's cached pages are dropped first (dd iflag=nocache), so
 * the lookups read from disk what they touch, as after a reboot. With SCALE_MEMORY_LIMIT_MIB only
 * the restarted node runs in the memory cgroup (seeding is not confined).
 */
const RESTART = env.SCALE_RESTART === '1';
const EVICT = env.SCALE_EVICT === '1';
/**
 * SCALE_COMPACT=1 (LMDB, with SCALE_RESTART=1): once the seeding is over, the stopped node's store
 * is compacted the way an operator would — `tessera backup <dir> --compact`, then `tessera
 * restore <dir>` into a new data directory — and the serving node starts on that.
 */
const COMPACT = env.SCALE_COMPACT === '1';
/** SCALE_FLOOR=0: no "PostgreSQL floor" (the node's statement timed alone) beside the PostgreSQL rows. */
const FLOOR = env.SCALE_FLOOR !== '0';
const STORES = (env.SCALE_STORES ?? (env.SCALE_DATABASE_URL ? 'postgres' : 'lmdb')).split(',').map((s) => s.trim()) as Store[];

interface Row {
  readonly what: string;
  readonly p50: number;
  readonly p99: number;
  readonly target: string;
  /** Statements the node sent to PostgreSQL per request (tessera_store_statements); undefined on LMDB. */
  readonly statements: number | undefined;
  /** Page faults of the node per request: major (a page read from disk) and minor (a page mapped from memory). */
  readonly majorFaults: number;
  readonly minorFaults: number;
  /** PostgreSQL: the request's own statement timed alone from a bare client (SCALE_FLOOR). */
  floor?: Floor;
}

const json = { 'content-type': 'application/json' };

function auth(node: TesseraNode): Record<string, string> {
  return { authorization: `Bearer ${node.adminToken}`, ...json };
}

async function call(node: TesseraNode, method: string, path: string, body?: unknown): Promise<unknown> {
  const result = await httpRequest(node.origin, method, path, auth(node), body === undefined ? undefined : JSON.stringify(body));
  if (result.status >= 300) throw new Error(`${method} ${path}: HTTP ${result.status} ${result.body.slice(0, 300)}`);
  return JSON.parse(result.body || '{}');
}

/** Runs `make(i)` for i in [from, to), `CONCURRENCY` at a time; returns requests per second. */
async function load(from: number, to: number, make: (i: number) => Promise<unknown>, progress?: string): Promise<number> {
  let next = from;
  const started = performance.now();
  let lastReport = started;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      await make(i);
      if (progress !== undefined && performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        process.stderr.write(`  ${progress}: ${i + 1 - from}/${to - from} (${Math.round((i + 1 - from) / ((lastReport - started) / 1000))}/s)\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, to - from) }, worker));
  return (to - from) / ((performance.now() - started) / 1000);
}

/** The node's tessera_store_statements (PostgreSQL round trips so far), or undefined (LMDB). */
async function statementsSent(node: TesseraNode): Promise<number | undefined> {
  const result = await httpRequest(node.origin, 'GET', '/metrics', {});
  const line = /^tessera_store_statements (\d+)/m.exec(result.body);
  return line === null ? undefined : Number(line[1]);
}

/** Minor and major page faults of the process so far (/proc/<pid>/stat fields 10 and 12). */
function faults(pid: number): { minor: number; major: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { minor: Number(fields[7]), major: Number(fields[9]) };
}

/** CPU time and time runnable but waiting for a core, ns, summed over the process's threads (/proc/<pid>/task/<tid>/schedstat). */
function schedstat(pid: number): { cpu: number; wait: number; threads: Map<string, number> } {
  let cpu = 0;
  let wait = 0;
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, delay] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      cpu += Number(run);
      wait += Number(delay);
      threads.set(`${tid} ${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}`, Number(run));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { cpu, wait, threads };
}

/** The threads that ran more than 0.2 ms between two schedstat readings, with their ms. */
function busyThreads(from: Map<string, number>, to: Map<string, number>): string {
  const busy: string[] = [];
  for (const [thread, run] of to) {
    const ms = (run - (from.get(thread) ?? 0)) / 1e6;
    if (ms > 0.2) busy.push(`${thread}: ${ms.toFixed(2)}`);
  }
  return JSON.stringify(busy.join(', '));
}

async function latency(node: TesseraNode, what: string, target: string, send: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < WARMUP; i += 1) await send(SAMPLES + i); // other inputs than the timed ones: their pages stay as cold as the row means them
  const before = await statementsSent(node);
  const f0 = faults(node.server.pid);
  const times: number[] = [];
  const starts: number[] = [];
  const sched: string[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const s0 = TRACE === undefined ? undefined : [schedstat(node.server.pid), schedstat(process.pid)];
    const t0 = performance.now();
    await send(i);
    times.push(performance.now() - t0);
    starts.push(t0);
    if (s0 !== undefined) {
      const [n1, c1] = [schedstat(node.server.pid), schedstat(process.pid)];
      sched.push(`"nodeCpu":${((n1.cpu - s0[0]!.cpu) / 1e6).toFixed(3)},"nodeWait":${((n1.wait - s0[0]!.wait) / 1e6).toFixed(3)},"clientCpu":${((c1.cpu - s0[1]!.cpu) / 1e6).toFixed(3)},"clientWait":${((c1.wait - s0[1]!.wait) / 1e6).toFixed(3)},"nodeThreads":${busyThreads(s0[0]!.threads, n1.threads)}`);
    }
  }
  const f1 = faults(node.server.pid);
  if (TRACE !== undefined) appendFileSync(TRACE, times.map((ms, i) => `${JSON.stringify({ row: what, pid: node.server.pid, t: performance.timeOrigin + starts[i]!, ms }).slice(0, -1)},${sched[i]!}}`).join('\n') + '\n');
  const after = await statementsSent(node);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  const statements = before === undefined || after === undefined ? undefined : (after - before) / SAMPLES;
  return { what, p50: at(0.5), p99: at(0.99), target, statements, majorFaults: (f1.major - f0.major) / SAMPLES, minorFaults: (f1.minor - f0.minor) / SAMPLES };
}

const orgName = (i: number) => `Scale Org ${String(i).padStart(6, '0')}`;
const userBody = (i: number) => ({
  human: { username: `scale.user${i}`, profile: { givenName: 'Scale', familyName: `User ${i}` }, email: { address: `scale.user${i}@example.com` } },
});

interface Writes {
  readonly orgs: number;
  readonly users: number;
  /** CPU of the node process (user + system) per create, ms: much less sensitive to the machine's load than the rate. */
  readonly orgCpuMs: number;
  readonly userCpuMs: number;
  readonly orgStatements: number | undefined;
  readonly userStatements: number | undefined;
}

/** Creates per second on a fresh node of `main`, after WRITE_WARMUP creates of each kind that are not counted. */
async function writeThroughput(main: string, cleanup: Cleanup, store: Store): Promise<Writes> {
  const node = await startTessera({ main, cpu: undefined, cleanup, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', ...storeEnv(store) } });
  try {
    await load(0, WRITE_WARMUP, (i) => call(node, 'POST', '/resources/v3alpha/organizations', { name: `Warm Org ${i}` }));
    await load(0, WRITE_WARMUP, (i) => call(node, 'POST', '/resources/v3alpha/users', userBody(-2 - i)));
    const s0 = await statementsSent(node);
    const c0 = cpuMs(node.server.pid);
    const orgs = await load(0, WRITE_SAMPLE, (i) => call(node, 'POST', '/resources/v3alpha/organizations', { name: `Write Org ${i}` }));
    const s1 = await statementsSent(node);
    const c1 = cpuMs(node.server.pid);
    const users = await load(0, WRITE_SAMPLE, (i) => call(node, 'POST', '/resources/v3alpha/users', userBody(i)));
    const s2 = await statementsSent(node);
    const c2 = cpuMs(node.server.pid);
    const per = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : (b - a) / WRITE_SAMPLE);
    return { orgs, users, orgCpuMs: (c1 - c0) / WRITE_SAMPLE, userCpuMs: (c2 - c1) / WRITE_SAMPLE, orgStatements: per(s0, s1), userStatements: per(s1, s2) };
  } finally {
    await node.server.stop();
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * This build's write throughput, and with SCALE_BASELINE_MAIN the baseline's, alternating
 * baseline/this for SCALE_WRITE_ROUNDS rounds so both see the same machine load.
 */
async function writePhase(store: Store, notes: string[]): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const base = env.SCALE_BASELINE_MAIN;
    const mine: Writes[] = [];
    const theirs: Writes[] = [];
    for (let round = 0; round < (base === undefined ? 1 : WRITE_ROUNDS); round += 1) {
      if (base !== undefined) theirs.push(await writeThroughput(base, cleanup, store));
      mine.push(await writeThroughput(MAIN, cleanup, store));
    }
    const rates = (w: Writes[]) =>
      `create organization ${w.map((x) => x.orgs.toFixed(0)).join('/')}/s (node CPU ${w.map((x) => x.orgCpuMs.toFixed(2)).join('/')} ms each), create user ${w.map((x) => x.users.toFixed(0)).join('/')}/s (node CPU ${w.map((x) => x.userCpuMs.toFixed(2)).join('/')} ms each)`;
    notes.push(`write throughput (this build, ${WRITE_SAMPLE} each after ${WRITE_WARMUP} not counted, ${CONCURRENCY} in flight, per round): ${rates(mine)}${statementNote(mine[0]!)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    if (base !== undefined) {
      notes.push(`write throughput (baseline ${base}, per round): ${rates(theirs)}${statementNote(theirs[0]!)}`);
      const ratio = (k: 'orgs' | 'users') => (median(mine.map((w) => w[k])) / median(theirs.map((w) => w[k]))).toFixed(2);
      notes.push(`ratio this/baseline (medians of ${mine.length} rounds): organizations ${ratio('orgs')}, users ${ratio('users')} (target ≥ 0.8)`);
      const cpu = (k: 'orgCpuMs' | 'userCpuMs') => (median(theirs.map((w) => w[k])) / median(mine.map((w) => w[k]))).toFixed(2);
      notes.push(`node CPU per create, baseline/this (medians; above 1: this build spends less): organizations ${cpu('orgCpuMs')}, users ${cpu('userCpuMs')}`);
    }
  } catch (error) {
    notes.push(`FAILED: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
}

function statementNote(w: { orgStatements: number | undefined; userStatements: number | undefined }): string {
  if (w.orgStatements === undefined || w.userStatements === undefined) return '';
  return ` (statements per create: organization ${w.orgStatements.toFixed(1)}, user ${w.userStatements.toFixed(1)})`;
}

function storeEnv(store: Store): Record<string, string> {
  if (store === 'lmdb') return {};
  const url = env.SCALE_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('SCALE_STORES names postgres: set SCALE_DATABASE_URL');
  // A schema per node: the write-phase nodes (this build and the baseline, whose formats differ)
  // and the measured node must never share one. SCALE_DATABASE_SCHEMA is the names' prefix.
  schemaCount += 1;
  return { TESSERA_DATABASE_URL: url, TESSERA_DATABASE_SCHEMA: `${env.SCALE_DATABASE_SCHEMA ?? 'tessera_scale'}_${Date.now()}_${schemaCount}` };
}
let schemaCount = 0;

/** CPU time (user + system) the process has used, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

interface Measured {
  readonly store: Store;
  /** Replaced by a fresh process on the same data with SCALE_RESTART=1. */
  node: TesseraNode;
  /** The node's environment defaults (its store settings), for a restart. */
  readonly defaults: Readonly<Record<string, string>>;
  /** PostgreSQL: the node's schema (VACUUM ANALYZEd after seeding). */
  readonly schema?: string;
  readonly rows: Row[];
  readonly notes: string[];
  /** The node's memory cgroup (SCALE_MEMORY_LIMIT_MIB). */
  memory?: MemoryLimit;
  /** PostgreSQL with SCALE_FLOOR: a bare client on the node's schema timing its statements. */
  floor?: StatementFloor;
}

/**
 * One latency row measured on every node, one store right after the other (same machine load);
 * with `statement` (the request's one PostgreSQL statement for input i), the PostgreSQL row's
 * floor is timed right after, on the same inputs (SAMPLES timed after FLOOR_WARMUP others).
 */
async function eachStore(
  nodes: readonly Measured[],
  what: string,
  target: string,
  send: (node: TesseraNode) => (i: number) => Promise<unknown>,
  statement?: StatementOf,
): Promise<void> {
  for (const m of nodes) {
    const row = await latency(m.node, what, target, send(m.node));
    m.rows.push(row);
    if (statement !== undefined && m.floor !== undefined) row.floor = await m.floor.measure(m.node.server.pid, statement, SAMPLES);
  }
}

async function main(): Promise<void> {
  if (SEED !== 'api' && SEED !== 'import') throw new Error(`SCALE_SEED: unknown mode ${SEED} (api, import)`);
  for (const store of STORES) {
    if (store !== 'lmdb' && store !== 'postgres') throw new Error(`SCALE_STORES: unknown store ${String(store)} (lmdb, postgres)`);
  }
  const measured: Measured[] = [];
  const cleanup = new Cleanup();
  try {
    const writeNotes = new Map<Store, string[]>(STORES.map((store) => [store, [`store: ${store}; organizations: ${ORGS}; users: ${USERS}; samples: ${SAMPLES}`]]));
    for (const store of STORES) await writePhase(store, writeNotes.get(store)!);
    if (!WRITE_ONLY) {
      for (const store of STORES) {
        const storeDefaults = storeEnv(store);
        const defaults = { TESSERA_SIGNING_ALGORITHM: 'ES256', ...storeDefaults };
        const node = await startTessera({ main: MAIN, cpu: undefined, cleanup, defaults });
        const schema = storeDefaults.TESSERA_DATABASE_SCHEMA;
        // With SCALE_RESTART=1 only the restarted (serving) node is confined: seeding runs unconfined.
        const memory = MEMORY_LIMIT_MIB === undefined || RESTART ? undefined : confineMemory(node.server.pid, MEMORY_LIMIT_MIB, cleanup);
        if (memory !== undefined) writeNotes.get(store)!.push(`the node ran in a memory cgroup limited to ${MEMORY_LIMIT_MIB} MiB (moved there right after start)`);
        measured.push({ store, node, defaults, rows: [], notes: writeNotes.get(store)!, ...(schema === undefined ? {} : { schema }), ...(memory === undefined ? {} : { memory }) });
      }
      await readPhase(measured, cleanup);
    } else {
      for (const store of STORES) process.stdout.write(`\n### ${store}\n${writeNotes.get(store)!.map((n) => `\n- ${n}`).join('')}\n`);
    }
  } catch (error) {
    process.stdout.write(`\nFAILED: ${describeError(error)}\n`);
    process.exitCode = 1;
  } finally {
    for (const m of measured) {
      process.stdout.write(`\n### ${m.store}\n\n| measurement | p50 ms | p99 ms | target | statements per request | major / minor page faults per request |\n|---|---|---|---|---|---|\n`);
      for (const r of m.rows) process.stdout.write(`| ${r.what} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.target} | ${r.statements === undefined ? '—' : r.statements.toFixed(1)} | ${r.majorFaults.toFixed(1)} / ${r.minorFaults.toFixed(1)} |\n`);
      for (const note of m.notes) process.stdout.write(`\n- ${note}`);
      process.stdout.write('\n');
    }
    // The issue's "the same figures on PostgreSQL within 2× of LMDB", row by row (each row measured on both back to back).
    const lmdb = measured.find((m) => m.store === 'lmdb');
    const pg = measured.find((m) => m.store === 'postgres');
    if (lmdb !== undefined && pg !== undefined) {
      process.stdout.write(`\n### postgres / lmdb\n\n| measurement | lmdb p50 ms | postgres p50 ms | p50 ratio | lmdb p99 ms | postgres p99 ms | p99 ratio (target ≤ 2) |\n|---|---|---|---|---|---|---|\n`);
      for (const r of pg.rows) {
        const base = lmdb.rows.find((l) => l.what === r.what);
        if (base !== undefined) process.stdout.write(`| ${r.what} | ${base.p50.toFixed(2)} | ${r.p50.toFixed(2)} | ${(r.p50 / base.p50).toFixed(2)} | ${base.p99.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.p99 / base.p99).toFixed(2)} |\n`);
      }
      // The machine's limit beside each ratio: the node's own statement alone, and the ratio if the node added nothing to it.
      const floored = pg.rows.filter((r) => r.floor !== undefined && lmdb.rows.some((l) => l.what === r.what));
      if (floored.length > 0) {
        process.stdout.write(
          `\n### PostgreSQL floor: the node's statement alone (bare postgres.js client, one at a time, ${SAMPLES} samples after ${FLOOR_WARMUP})\n\n| measurement | lmdb p50 ms | postgres p50 ms | statement p50 / p99 ms | p50 ratio | ratio if the node added nothing ((lmdb + statement) ÷ lmdb) | postgres − statement p50 ms (the node's share) | node's share ÷ lmdb p50 |\n|---|---|---|---|---|---|---|---|\n`,
        );
        for (const r of floored) {
          const base = lmdb.rows.find((l) => l.what === r.what)!;
          const f = r.floor!;
          process.stdout.write(
            `| ${r.what} | ${base.p50.toFixed(2)} | ${r.p50.toFixed(2)} | ${f.p50.toFixed(3)} / ${f.p99.toFixed(3)} | ${(r.p50 / base.p50).toFixed(2)} | ${((base.p50 + f.p50) / base.p50).toFixed(2)} | ${(r.p50 - f.p50).toFixed(2)} | ${((r.p50 - f.p50) / base.p50).toFixed(2)} |\n`,
          );
        }
        for (const r of floored) process.stdout.write(`\n- ${r.what}: ${floorRowNote(r.floor!)}`);
        process.stdout.write('\n');
      }
    } else if (pg !== undefined) {
      for (const r of pg.rows) if (r.floor !== undefined) process.stdout.write(`\n- PostgreSQL floor, ${r.what}: statement p50 ${r.floor.p50.toFixed(3)} / p99 ${r.floor.p99.toFixed(3)} ms; ${floorRowNote(r.floor)}`);
    }
    for (const m of measured) await m.floor?.close();
    await cleanup.run();
    closeHttpClient();
  }
}

/**
 * PostgreSQL: VACUUM ANALYZE the node's schema after a seeding phase, as autovacuum does on its
 * own on a production server (the shared test server runs with autovacuum off; its
 * insert-triggered vacuum, PostgreSQL 13+, covers a bulk load): without statistics the planner
 * takes every index range for one row and never picks the trigram index, and without the
 * visibility map the vacuum sets an Index Only Scan reads every entry's heap tuple too
 * (docs/operations/postgres.md; bench/README.md "The visibility map and the position check on
 * PostgreSQL"). SCALE_ANALYZE=analyze (or 1): ANALYZE alone, as this bench did before
 * 2026-11-27; SCALE_ANALYZE=0: neither.
 */
async function analyze(m: Measured): Promise<void> {
  if (m.schema === undefined || env.SCALE_ANALYZE === '0') return;
  const sql = postgres(env.SCALE_DATABASE_URL!, { max: 1, onnotice: () => undefined, connection: { search_path: `"${m.schema}"` } });
  try {
    const t0 = performance.now();
    const command = env.SCALE_ANALYZE === undefined || env.SCALE_ANALYZE === '' || env.SCALE_ANALYZE === 'vacuum' ? 'VACUUM ANALYZE' : 'ANALYZE';
    await sql.unsafe(`${command} index_entries, row_summaries, records, row_counts, unique_claims`);
    m.notes.push(`${command} after seeding: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Seeds every node, then measures each latency row on all of them back to back. */
async function readPhase(nodes: Measured[], cleanup: Cleanup): Promise<void> {
  const defaultOrg = new Map<TesseraNode, string>();
  for (const m of nodes) {
    const created = (await call(m.node, 'POST', '/resources/v3alpha/users', userBody(-1))) as { details: { resourceOwner: { id: string } } };
    defaultOrg.set(m.node, created.details.resourceOwner.id);
  }
  await eachStore(nodes, 'session by login name (1 user)', 'unchanged at scale', (node) => () => call(node, 'POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: 'scale.user-1' } } }));
  const middle = new Map<TesseraNode, string>();
  for (const m of nodes) {
    const t0 = performance.now();
    const orgRate = await load(0, ORGS, (i) => call(m.node, 'POST', '/resources/v3alpha/organizations', { name: orgName(i) }), `${m.store} organizations`);
    m.notes.push(`seeded ${ORGS} organizations through the API in ${((performance.now() - t0) / 1000).toFixed(0)} s (${orgRate.toFixed(0)}/s)`);
    await analyze(m);
    if (RESTART) {
      const seeding = m.node;
      await restart(m, cleanup, 'the organizations');
      defaultOrg.set(m.node, defaultOrg.get(seeding)!);
    }
    const found = (await search(m.node, [{ name: { name: orgName(ORGS >> 1), method: 'TEXT_FILTER_METHOD_EQUALS' } }], 'query.limit=1')) as { result: { details: { id: string } }[] };
    middle.set(m.node, found.result[0]!.details.id);
    if (FLOOR && m.schema !== undefined) m.floor = await openStatementFloor(env.SCALE_DATABASE_URL!, m.schema);
  }
  await eachStore(nodes, 'GET organization', '≤ 2 ms', (node) => () => call(node, 'GET', `/resources/v3alpha/organizations/${middle.get(node)!}`), positionCheckStatement());
  await eachStore(nodes, 'org search, limit 10, by name', '≤ 5 ms', (node) => () => search(node, [], 'query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_NAME'), orgSearchStatement({ limit: 10, sort: 'NAME' }));
  await eachStore(nodes, 'org search, limit 10, by creation date', '≤ 5 ms', (node) => () => search(node, [], 'query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_CREATION_DATE'), orgSearchStatement({ limit: 10, sort: 'CREATION_DATE' }));
  // The name filters' inputs, shared by the requests and their floors (the same i, the same statement).
  const byName = (node: TesseraNode, method: NameMethod, name: (i: number) => string) => (i: number) => search(node, [{ name: { name: name(i), method: `TEXT_FILTER_METHOD_${method}` } }]);
  const nameFloor = (method: NameMethod, name: (i: number) => string) => orgSearchStatement({ limit: 10, name: (i) => ({ method, name: name(i) }) });
  const equalsName = (i: number) => orgName((i * 7919) % ORGS);
  const prefixName = (i: number) => orgName((i * 7919) % ORGS).slice(0, -1);
  const containsName = (i: number) => `Org ${String((i * 7919) % ORGS).padStart(6, '0').slice(0, 5)}`;
  await eachStore(nodes, 'org search, name EQUALS', '≤ 5 ms', (node) => byName(node, 'EQUALS', equalsName), nameFloor('EQUALS', equalsName));
  await eachStore(nodes, 'org search, name STARTS_WITH', '≤ 5 ms', (node) => byName(node, 'STARTS_WITH', prefixName), nameFloor('STARTS_WITH', prefixName));
  await eachStore(nodes, 'org search, name CONTAINS', '≤ 50 ms', (node) => byName(node, 'CONTAINS', containsName), nameFloor('CONTAINS', containsName));
  if (USERS > 0) await userPhase(nodes, defaultOrg, cleanup);
  for (const m of nodes) {
    const { rssAnonKiB, rssFileKiB } = memoryOf(m.node.server.pid);
    m.notes.push(
      `node RSS after the measurements${RESTART ? ' (the restarted node)' : ''}: VmRSS ${rssMiB(m.node.server.pid).toFixed(0)} MiB (target < 2048), of it RssAnon ${(rssAnonKiB / 1024).toFixed(0)} MiB (heap and native) and RssFile ${(rssFileKiB / 1024).toFixed(0)} MiB (file pages mapped, LMDB's map); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    );
    if (m.memory !== undefined) {
      const { current, peak } = m.memory.usage();
      m.notes.push(`memory cgroup: ${(current / 1048576).toFixed(0)} MiB charged now${peak === undefined ? '' : `, at most ${(peak / 1048576).toFixed(0)} MiB`} (limit ${MEMORY_LIMIT_MIB} MiB)`);
    }
  }
}

/**
 * SCALE_RESTART=1: a fresh node process on the same data, as a serving node has it (the seeding
 * node's VmRSS counts every page of the LMDB map it touched while writing); back in a memory
 * cgroup of its own with SCALE_MEMORY_LIMIT_MIB.
 */
async function restart(m: Measured, cleanup: Cleanup, what: string): Promise<void> {
  const old = memoryOf(m.node.server.pid);
  await m.node.server.stop();
  // Confined once the seeding is over: after the organizations only when no users follow.
  const seedingOver = what === 'the users' || USERS === 0;
  let dataDir = m.node.dataDir;
  let compacted = '';
  if (COMPACT && m.store === 'lmdb' && seedingOver) {
    ({ dataDir, compacted } = compactStore(dataDir, cleanup));
  }
  let evicted = '';
  if (EVICT && m.store === 'lmdb') {
    // posix_fadvise(DONTNEED) on the data files only: the rest of the machine's page cache stays.
    for (const file of readdirSync(dataDir, { recursive: true }) as string[]) {
      if (!file.endsWith('.mdb')) continue;
      const dd = spawnSync('dd', [`if=${join(dataDir, file)}`, 'iflag=nocache', 'count=0', 'status=none']);
      if (dd.status !== 0) throw new Error(`dd iflag=nocache ${file}: ${dd.stderr.toString()}`);
    }
    evicted = '; the data files\' cached pages dropped before the start (dd iflag=nocache)';
  }
  m.node = await startTessera({ main: MAIN, cpu: undefined, cleanup, defaults: m.defaults, dataDir });
  if (MEMORY_LIMIT_MIB !== undefined && seedingOver) m.memory = confineMemory(m.node.server.pid, MEMORY_LIMIT_MIB, cleanup);
  const fresh = memoryOf(m.node.server.pid);
  m.notes.push(
    `restarted after seeding ${what} (fresh process, same data${compacted}${MEMORY_LIMIT_MIB === undefined || !seedingOver ? '' : `, in a ${MEMORY_LIMIT_MIB} MiB memory cgroup`}${evicted}): the seeding node had VmRSS ${(old.rssKiB / 1024).toFixed(0)} / RssAnon ${(old.rssAnonKiB / 1024).toFixed(0)} / RssFile ${(old.rssFileKiB / 1024).toFixed(0)} MiB, the fresh one ${(fresh.rssKiB / 1024).toFixed(0)} / ${(fresh.rssAnonKiB / 1024).toFixed(0)} / ${(fresh.rssFileKiB / 1024).toFixed(0)} MiB before its first request`,
  );
}

/**
 * SCALE_COMPACT=1: `tessera backup --compact` of the stopped node's data directory, restored into
 * a new one (removed at the end); returns it and a note with the data file's size before and after.
 */
function compactStore(dataDir: string, cleanup: Cleanup): { dataDir: string; compacted: string } {
  const scratch = mkdtempSync(join(tmpdir(), 'tessera-scale-compact-'));
  cleanup.addDirectory(scratch);
  const cli = (args: string[], target: string) => {
    const started = performance.now();
    const run = spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, TESSERA_DATA_DIR: target }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`tessera ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
    return (performance.now() - started) / 1000;
  };
  const backup = join(scratch, 'backup');
  const restored = join(scratch, 'data');
  const backupS = cli(['backup', backup, '--compact'], dataDir);
  const restoreS = cli(['restore', backup], restored);
  const before = statSync(join(dataDir, 'lmdb', 'data.mdb')).size;
  const after = statSync(join(restored, 'lmdb', 'data.mdb')).size;
  rmSync(backup, { recursive: true, force: true });
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  return { dataDir: restored, compacted: `, compacted: tessera backup --compact ${backupS.toFixed(0)} s and restore ${restoreS.toFixed(0)} s, data.mdb ${mib(before)} → ${mib(after)} MiB` };
}

type NameMethod = 'EQUALS' | 'STARTS_WITH' | 'CONTAINS';

/** Organization search; the body is the filter list, query and sorting column travel in the query string. */
const search = (node: TesseraNode, filters: unknown[], qs = 'query.limit=10') => call(node, 'POST', `/resources/v3alpha/organizations/_search?${qs}`, filters);

/**
 * SCALE_SEED=import: USERS users in documents of IMPORT_USERS, into the default organization
 * `orgId` (the org item is skipped: it exists), one import at a time; returns users per second.
 * Each document's progress (rate, node CPU per user) goes to stderr.
 */
async function importUsers(m: Measured, orgId: string): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < USERS; from += IMPORT_USERS) {
    const to = Math.min(USERS, from + IMPORT_USERS);
    const body = JSON.stringify(importDocument(orgId, from, to));
    const t0 = performance.now();
    const c0 = cpuMs(m.node.server.pid);
    const s0 = await statementsSent(m.node);
    const result = await httpRequest(m.node.origin, 'POST', '/admin/v1/import', auth(m.node), body, 3_600_000);
    if (result.status !== 200) throw new Error(`import: HTTP ${result.status} ${result.body.slice(0, 300)}`);
    const counts = (JSON.parse(result.body) as { counts: { human_user?: { created: number } } }).counts;
    if (counts.human_user?.created !== to - from) throw new Error(`import created ${JSON.stringify(counts.human_user)} of ${to - from} users: ${result.body.slice(0, 300)}`);
    const seconds = (performance.now() - t0) / 1000;
    const s1 = await statementsSent(m.node);
    const statements = s0 === undefined || s1 === undefined ? '' : `, ${((s1 - s0) / (to - from)).toFixed(2)} statements per user`;
    process.stderr.write(`  ${m.store} import: ${to}/${USERS} users (${((to - from) / seconds).toFixed(0)}/s, node CPU ${((cpuMs(m.node.server.pid) - c0) / (to - from)).toFixed(2)} ms per user${statements})\n`);
  }
  return USERS / ((performance.now() - started) / 1000);
}

/** Seeds the users, then the user searches and the login-name lookup at that size. */
async function userPhase(nodes: Measured[], defaultOrg: ReadonlyMap<TesseraNode, string>, cleanup: Cleanup): Promise<void> {
  for (const m of nodes) {
    const t1 = performance.now();
    const c1 = cpuMs(m.node.server.pid);
    const how = SEED === 'import' ? `the admin import (documents of ${IMPORT_USERS})` : 'the API';
    const userRate = SEED === 'import' ? await importUsers(m, defaultOrg.get(m.node)!) : await load(0, USERS, (i) => call(m.node, 'POST', '/resources/v3alpha/users', userBody(i)), `${m.store} users`);
    const cpu = (cpuMs(m.node.server.pid) - c1) / USERS;
    m.notes.push(`seeded ${USERS} users through ${how} in ${((performance.now() - t1) / 1000).toFixed(0)} s (${userRate.toFixed(0)}/s; node CPU ${cpu.toFixed(2)} ms per user); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    await analyze(m);
    if (RESTART) await restart(m, cleanup, 'the users');
  }
  const users = (node: TesseraNode, filters: unknown[], qs = 'query.limit=10') => call(node, 'POST', `/resources/v3alpha/users/_search?${qs}`, filters);
  // Each row its own users (the login-name row on the email row's users would find their rows' pages cached).
  const pick = (i: number) => (i * 104_729) % USERS;
  const pickLogin = (i: number) => pick(i + 100_000);
  const pickSession = (i: number) => pick(i + 200_000);
  await eachStore(nodes, 'user search, email EQUALS', '≤ 10 ms', (node) => (i) => users(node, [{ email: { address: `scale.user${pick(i)}@example.com`, method: 'TEXT_FILTER_METHOD_EQUALS' } }]));
  await eachStore(nodes, 'user search, login name EQUALS', '≤ 10 ms', (node) => (i) => users(node, [{ loginName: { loginName: `scale.user${pickLogin(i)}@default.localhost`, method: 'TEXT_FILTER_METHOD_EQUALS' } }]));
  await eachStore(nodes, 'user search, first page by creation date', '≤ 10 ms', (node) => () => users(node, [], 'query.limit=10&sortingColumn=USER_FIELD_NAME_CREATION_DATE'));
  await eachStore(nodes, `session by login name (${USERS} users)`, 'unchanged at scale', (node) => (i) => call(node, 'POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: `scale.user${pickSession(i)}` } } }));
}

await main();
