/**
 * `npm run bench:scale`: searches at scale (issue #15; figures in bench/README.md "Scale").
 * For each store of SCALE_STORES (`lmdb`, `postgres`, or both in one run: `lmdb,postgres`; default
 * `lmdb`, or `postgres` when only SCALE_DATABASE_URL is given), starts a node from dist/, measures the write
 * throughput (create organization, create user) on the near-empty node, seeds SCALE_ORGS
 * organizations and SCALE_USERS users through the public API (batched, SCALE_CONCURRENCY in
 * flight), then measures latencies with one client, one request at a time (p50/p99 of
 * SCALE_SAMPLES each): GET organization, organization searches (limit 10: no filter by name and
 * by creation date, name EQUALS / STARTS_WITH / CONTAINS), user searches (email EQUALS, login
 * name EQUALS, first page by creation date), a session by login name (the login UI's user
 * lookup) before and after the users exist, and the node's RSS. With SCALE_BASELINE_MAIN (the
 * main.js of another build, e.g. a `git worktree` of main), the same write throughput is
 * measured on that build in the same run, for the ratio.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Cleanup, describeError } from './processes.js';
import { closeHttpClient, httpRequest, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const MAIN = env.SCALE_MAIN ?? 'dist/src/cli/main.js';
const ORGS = Number(env.SCALE_ORGS ?? 100_000);
const USERS = Number(env.SCALE_USERS ?? 1_000_000);
const SAMPLES = Number(env.SCALE_SAMPLES ?? 200);
const CONCURRENCY = Number(env.SCALE_CONCURRENCY ?? 16);
const WRITE_SAMPLE = Number(env.SCALE_WRITE_SAMPLE ?? 2000);
type Store = 'lmdb' | 'postgres';
const STORES = (env.SCALE_STORES ?? (env.SCALE_DATABASE_URL ? 'postgres' : 'lmdb')).split(',').map((s) => s.trim()) as Store[];

interface Row {
  readonly what: string;
  readonly p50: number;
  readonly p99: number;
  readonly target: string;
  /** Statements the node sent to PostgreSQL per request (tessera_store_statements); undefined on LMDB. */
  readonly statements: number | undefined;
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

async function latency(node: TesseraNode, what: string, target: string, send: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < 10; i += 1) await send(i); // warm-up
  const before = await statementsSent(node);
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const t0 = performance.now();
    await send(i);
    times.push(performance.now() - t0);
  }
  const after = await statementsSent(node);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  const statements = before === undefined || after === undefined ? undefined : (after - before) / SAMPLES;
  return { what, p50: at(0.5), p99: at(0.99), target, statements };
}

const orgName = (i: number) => `Scale Org ${String(i).padStart(6, '0')}`;
const userBody = (i: number) => ({
  human: { username: `scale.user${i}`, profile: { givenName: 'Scale', familyName: `User ${i}` }, email: { address: `scale.user${i}@example.com` } },
});

async function writeThroughput(main: string, cleanup: Cleanup, store: Store): Promise<{ orgs: number; users: number; orgStatements: number | undefined; userStatements: number | undefined }> {
  const node = await startTessera({ main, cpu: undefined, cleanup, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', ...storeEnv(store) } });
  try {
    const s0 = await statementsSent(node);
    const orgs = await load(0, WRITE_SAMPLE, (i) => call(node, 'POST', '/resources/v3alpha/organizations', { name: `Write Org ${i}` }));
    const s1 = await statementsSent(node);
    const users = await load(0, WRITE_SAMPLE, (i) => call(node, 'POST', '/resources/v3alpha/users', userBody(i)));
    const s2 = await statementsSent(node);
    const per = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : (b - a) / WRITE_SAMPLE);
    return { orgs, users, orgStatements: per(s0, s1), userStatements: per(s1, s2) };
  } finally {
    await node.server.stop();
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
  return { TESSERA_DATABASE_URL: url, TESSERA_DATABASE_SCHEMA: env.SCALE_DATABASE_SCHEMA ?? `tessera_scale_${Date.now()}` };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function main(): Promise<void> {
  for (const store of STORES) {
    if (store !== 'lmdb' && store !== 'postgres') throw new Error(`SCALE_STORES: unknown store ${String(store)} (lmdb, postgres)`);
  }
  const measured = new Map<Store, Row[]>();
  for (const store of STORES) {
    const { rows, notes } = await measure(store);
    measured.set(store, rows);
    process.stdout.write(`\n### ${store}\n\n| measurement | p50 ms | p99 ms | target | statements per request |\n|---|---|---|---|---|\n`);
    for (const r of rows) process.stdout.write(`| ${r.what} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.target} | ${r.statements === undefined ? '—' : r.statements.toFixed(1)} |\n`);
    for (const note of notes) process.stdout.write(`\n- ${note}`);
    process.stdout.write('\n');
  }
  // The "the same figures on PostgreSQL within 2× of LMDB", row by row.
  const lmdb = measured.get('lmdb');
  const pg = measured.get('postgres');
  if (lmdb !== undefined && pg !== undefined) {
    process.stdout.write(`\n### postgres / lmdb\n\n| measurement | lmdb p50 ms | postgres p50 ms | p50 ratio | lmdb p99 ms | postgres p99 ms | p99 ratio (target ≤ 2) |\n|---|---|---|---|---|---|---|\n`);
    for (const r of pg) {
      const base = lmdb.find((l) => l.what === r.what);
      if (base !== undefined) process.stdout.write(`| ${r.what} | ${base.p50.toFixed(2)} | ${r.p50.toFixed(2)} | ${(r.p50 / base.p50).toFixed(2)} | ${base.p99.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.p99 / base.p99).toFixed(2)} |\n`);
    }
  }
  closeHttpClient();
}

/** One store: write throughput, then the seeded node's latencies. */
async function measure(store: Store): Promise<{ rows: Row[]; notes: string[] }> {
  const cleanup = new Cleanup();
  const rows: Row[] = [];
  const notes: string[] = [`store: ${store}; organizations: ${ORGS}; users: ${USERS}; samples: ${SAMPLES}`];
  try {
    const writes = await writeThroughput(MAIN, cleanup, store);
    notes.push(`write throughput (this build, ${WRITE_SAMPLE} each, ${CONCURRENCY} in flight): create organization ${writes.orgs.toFixed(0)}/s, create user ${writes.users.toFixed(0)}/s${statementNote(writes)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    if (env.SCALE_BASELINE_MAIN !== undefined) {
      const base = await writeThroughput(env.SCALE_BASELINE_MAIN, cleanup, store);
      notes.push(`write throughput (baseline ${env.SCALE_BASELINE_MAIN}): create organization ${base.orgs.toFixed(0)}/s, create user ${base.users.toFixed(0)}/s${statementNote(base)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      notes.push(`ratio this/baseline: organizations ${(writes.orgs / base.orgs).toFixed(2)}, users ${(writes.users / base.users).toFixed(2)} (target ≥ 0.8)`);
    }
    const node = await startTessera({ main: MAIN, cpu: undefined, cleanup, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', ...storeEnv(store) } });
    await call(node, 'POST', '/resources/v3alpha/users', userBody(-1));
    rows.push(await latency(node, 'session by login name (1 user)', 'unchanged at scale', () => call(node, 'POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: 'scale.user-1' } } })));
    const t0 = performance.now();
    const orgRate = await load(0, ORGS, (i) => call(node, 'POST', '/resources/v3alpha/organizations', { name: orgName(i) }), 'organizations');
    notes.push(`seeded ${ORGS} organizations through the API in ${((performance.now() - t0) / 1000).toFixed(0)} s (${orgRate.toFixed(0)}/s)`);
    // The body is the filter list; query and sorting column travel in the query string.
    const search = (filters: unknown[], qs = 'query.limit=10') => call(node, 'POST', `/resources/v3alpha/organizations/_search?${qs}`, filters);
    const found = (await search([{ name: { name: orgName(ORGS >> 1), method: 'TEXT_FILTER_METHOD_EQUALS' } }], 'query.limit=1')) as { result: { details: { id: string } }[] };
    const middle = found.result[0]!.details.id;
    rows.push(await latency(node, 'GET organization', '≤ 2 ms', () => call(node, 'GET', `/resources/v3alpha/organizations/${middle}`)));
    rows.push(await latency(node, 'org search, limit 10, by name', '≤ 5 ms', () => search([], 'query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_NAME')));
    rows.push(await latency(node, 'org search, limit 10, by creation date', '≤ 5 ms', () => search([], 'query.limit=10&sortingColumn=ORGANIZATION_FIELD_NAME_CREATION_DATE')));
    const byName = (method: string, name: (i: number) => string) => (i: number) => search([{ name: { name: name(i), method } }]);
    rows.push(await latency(node, 'org search, name EQUALS', '≤ 5 ms', byName('TEXT_FILTER_METHOD_EQUALS', (i) => orgName((i * 7919) % ORGS))));
    rows.push(await latency(node, 'org search, name STARTS_WITH', '≤ 5 ms', byName('TEXT_FILTER_METHOD_STARTS_WITH', (i) => orgName((i * 7919) % ORGS).slice(0, -1))));
    rows.push(await latency(node, 'org search, name CONTAINS', '≤ 50 ms', byName('TEXT_FILTER_METHOD_CONTAINS', (i) => `Org ${String((i * 7919) % ORGS).padStart(6, '0').slice(0, 5)}`)));
    if (USERS > 0) await userPhase(node, rows, notes);
    notes.push(`node RSS after the measurements: ${rssMiB(node.server.pid).toFixed(0)} MiB (target < 2048); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } catch (error) {
    notes.push(`FAILED: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
  return { rows, notes };
}

/** Seeds the users, then the user searches and the login-name lookup at that size. */
async function userPhase(node: TesseraNode, rows: Row[], notes: string[]): Promise<void> {
  const t1 = performance.now();
  const userRate = await load(0, USERS, (i) => call(node, 'POST', '/resources/v3alpha/users', userBody(i)), 'users');
  notes.push(`seeded ${USERS} users through the API in ${((performance.now() - t1) / 1000).toFixed(0)} s (${userRate.toFixed(0)}/s)`);
  const users = (filters: unknown[], qs = 'query.limit=10') => call(node, 'POST', `/resources/v3alpha/users/_search?${qs}`, filters);
  const pick = (i: number) => (i * 104_729) % USERS;
  rows.push(await latency(node, 'user search, email EQUALS', '≤ 10 ms', (i) => users([{ email: { address: `scale.user${pick(i)}@example.com`, method: 'TEXT_FILTER_METHOD_EQUALS' } }])));
  rows.push(await latency(node, 'user search, login name EQUALS', '≤ 10 ms', (i) => users([{ loginName: { loginName: `scale.user${pick(i)}@default.localhost`, method: 'TEXT_FILTER_METHOD_EQUALS' } }])));
  rows.push(await latency(node, 'user search, first page by creation date', '≤ 10 ms', () => users([], 'query.limit=10&sortingColumn=USER_FIELD_NAME_CREATION_DATE')));
  rows.push(await latency(node, `session by login name (${USERS} users)`, 'unchanged at scale', (i) => call(node, 'POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: `scale.user${pick(i)}` } } })));
}

await main();
