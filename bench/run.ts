/**
 * `npm run bench`: starts a plain uWS hello server, a plain node:http hello server and a Tessera
 * node as separate processes, seeds Tessera with organizations (and, for the OIDC scenarios,
 * service users, an API app and tokens), measures the raw RS256/ES256 signing rate on the
 * server's core, loads every scenario with
 * autocannon (and wrk when installed), and prints a markdown table where each figure stands
 * beside the uWS hello limit measured in the same run. Every run is written as JSON to
 * bench/results/. See bench/README.md for the method and how to read the ratios.
 * With a PostgreSQL database (BENCH_DATABASE_URL or TESSERA_TEST_DATABASE_URL) a second Tessera
 * node on PostgreSQL runs the client_credentials and create-organization scenarios too, in the
 * same run, with the CPU of its PostgreSQL backends measured beside its own (bench/postgres.ts).
 *
 * Settings (environment): BENCH_DURATION (s per run, 10), BENCH_WARMUP (s, 2), BENCH_RUNS (3),
 * BENCH_CONNECTIONS (100), BENCH_PIPELINING (1), BENCH_ORGS (200), BENCH_PIN (auto | 0),
 * BENCH_WRK (auto | 0), BENCH_SCENARIOS (comma-separated names, all by default), BENCH_WORKERS
 * (comma-separated worker counts: the Tessera scenarios once per count, each on a node of its own,
 * unpinned, with a table of their ratios); the studies'
 * settings are listed in bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as nodeRequest } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureAutocannon, measureWrk, type CpuTarget, type LoadSpec, type RunMeasurement } from './measure.js';
import {
  allowedCpus,
  Cleanup,
  clockTicksPerSecond,
  describeError,
  findExecutable,
  pinSelf,
  spawnServer,
  type ServerProcess,
} from './processes.js';
import { basicAuthorization, DISCOVERY_PATH, EMPTY_OIDC_SEED, ensureSigningAlgorithm, INTROSPECT_PATH, JWKS_PATH, jwsAlgorithm, seedOidc, TOKEN_PATH, USERINFO_PATH, type OidcSeed, type TokenAlgorithm } from './oidc.js';
import {
  machineFacts,
  renderMarkdown,
  toolResult,
  type BenchReport,
  type Pinning,
  type ScenarioCeiling,
  type ScenarioLimit,
  type ScenarioResult,
  type SigningRateResult,
  type ToolResult,
} from './report.js';
import { measureSigningRate, type SigningRate } from './signing-rate.js';
import { backendCpuDelta, openBenchDatabase, type BenchDatabase } from './postgres.js';
import { coldStudy, fairnessStudy, p99AtLoadStudy, rssStudy, STUDY_NAMES, type StudyName, type Studies } from './studies.js';
import { loginStudy } from './login-study.js';
import { createSystemUser } from './tenants.js';
import { closeHttpClient, httpRequest, memoryOf, ORGANIZATIONS_PATH, seedOrganizations, startTessera, TESSERA_HOST_HEADER, type TesseraNode } from './tessera.js';

const HELLO_SERVERS = fileURLToPath(new URL('./hello-servers.js', import.meta.url));
const CEILING_SERVER = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));
const TESSERA_MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));

interface Settings {
  readonly warmupS: number;
  readonly durationS: number;
  readonly runs: number;
  readonly connections: number;
  readonly pipelining: number;
  readonly organizations: number;
  readonly pin: boolean;
  readonly wrk: boolean;
  readonly only: ReadonlySet<string> | undefined;
  /** BENCH_WORKERS: TESSERA_WORKERS of each node the Tessera scenarios run on, in order; undefined: one node as configured. */
  readonly workers: readonly number[] | undefined;
  /** rss-opaque: seconds of opaque tokens, then seconds of pause. */
  readonly rssSeconds: number;
  readonly rssSettleSeconds: number;
  /** es256-p99-at-80: a fixed rate instead of 80 % of the peak. */
  readonly p99Rate: number | undefined;
  /** es256-p99-at-80 and its ceiling: open-loop runs, the verdict on their median p99. */
  readonly p99Runs: number;
  /** tenant-fairness: instance B's fixed rate. */
  readonly fairnessRate: number;
  /** tenant-fairness: the niceness of instance A's load process (0: the runner's priority). */
  readonly fairnessNice: number;
  /** cold-instance: instances created, and how many of them get a first token. */
  readonly instances: number;
  readonly coldSample: number;
  /** cold-instance: how long to wait after the restart before the first token (the start-up passes over every instance run then). */
  readonly coldSettleMs: number;
  /** cold-instance: tokens of one more instance before the second sample (0: only the sample right after the restart). */
  readonly coldWarmTokens: number;
  readonly loginUsers: number;
  readonly loginSeconds: number;
  readonly loginConcurrency: number;
}

type ServerName = 'hello-uws' | 'hello-node' | 'ceiling' | 'tessera' | 'tessera-pg';

interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly server: ServerName;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | (() => string);
  readonly expectedStatus: number;
  /** Also load with wrk when installed (a fixed request: a body made per request needs autocannon). */
  readonly wrk: boolean;
  /** The limit this scenario is reported against besides hello-uws (token scenarios). */
  readonly limit?: ScenarioLimit;
  /** The ceiling scenario of the same request (ceiling-server.ts), reported as a ratio per server CPU-s. */
  readonly ceiling?: ScenarioCeiling;
  /** Runs before the preflight (e.g. switching the signing key); returns a note for the log. */
  readonly prepare?: () => Promise<string | undefined>;
  /** Checks the preflight's body; returns what is wrong, or undefined. */
  readonly checkPreflight?: (body: string) => string | undefined;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const int = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
    return value;
  };
  const only = env.BENCH_SCENARIOS?.trim();
  const workers = env.BENCH_WORKERS?.trim();
  const workerCounts = workers === undefined || workers === '' ? undefined : workers.split(',').map((count) => Number(count.trim()));
  if (workerCounts?.some((count) => !Number.isInteger(count) || count < 1)) throw new Error(`BENCH_WORKERS must be comma-separated integers ≥ 1, got "${workers}"`);
  return {
    warmupS: int('BENCH_WARMUP', 2, 0),
    durationS: int('BENCH_DURATION', 10, 1),
    runs: int('BENCH_RUNS', 3, 1),
    connections: int('BENCH_CONNECTIONS', 100, 1),
    pipelining: int('BENCH_PIPELINING', 1, 1),
    organizations: int('BENCH_ORGS', 200, 1),
    pin: env.BENCH_PIN !== '0',
    wrk: env.BENCH_WRK !== '0',
    only: only === undefined || only === '' ? undefined : new Set(only.split(',').map((name) => name.trim())),
    workers: workerCounts,
    rssSeconds: int('BENCH_RSS_SECONDS', 30, 1),
    rssSettleSeconds: int('BENCH_RSS_SETTLE', 30, 0),
    p99Rate: env.BENCH_P99_RATE === undefined || env.BENCH_P99_RATE === '' ? undefined : int('BENCH_P99_RATE', 0, 1),
    p99Runs: int('BENCH_P99_RUNS', 1, 1),
    fairnessRate: int('BENCH_FAIRNESS_RATE', 200, 1),
    fairnessNice: int('BENCH_FAIRNESS_NICE', 19, 0),
    instances: int('BENCH_INSTANCES', 1000, 1),
    coldSample: int('BENCH_COLD_SAMPLE', 100, 1),
    coldSettleMs: int('BENCH_COLD_SETTLE_MS', 0, 0),
    coldWarmTokens: int('BENCH_COLD_WARM_TOKENS', 2000, 0),
    loginUsers: int('BENCH_LOGIN_USERS', 600, 1),
    loginSeconds: int('BENCH_LOGIN_SECONDS', 10, 1),
    loginConcurrency: int('BENCH_LOGIN_CONCURRENCY', 8, 1),
  };
}

interface Seed {
  /** A seeded organization (the middle one) for the read scenario. */
  readonly organizationId: string;
  readonly token: string;
  readonly oidc: OidcSeed;
  /** Switches the active signing key to an algorithm (no-op when Tessera is not running). */
  readonly useAlgorithm: (algorithm: TokenAlgorithm) => Promise<string | undefined>;
}

const FORM = 'application/x-www-form-urlencoded';

/** The access token of a token response must be a JWS of `algorithm`, or opaque when undefined. */
function tokenOfAlgorithm(algorithm: TokenAlgorithm | undefined): (body: string) => string | undefined {
  return (body) => {
    const parsed: unknown = JSON.parse(body);
    const token = typeof parsed === 'object' && parsed !== null && 'access_token' in parsed ? parsed.access_token : undefined;
    if (typeof token !== 'string') return `no access_token in ${body.slice(0, 200)}`;
    const alg = jwsAlgorithm(token);
    if (alg === algorithm) return undefined;
    return `access token is ${alg === undefined ? 'opaque' : `a ${alg} JWT`}, expected ${algorithm === undefined ? 'opaque' : `a ${algorithm} JWT`}`;
  };
}

function scenarios(seed: Seed, runId: string, pgSeed: Seed = seed): Scenario[] {
  const tessera = { host: TESSERA_HOST_HEADER, authorization: `Bearer ${seed.token}` };
  const json = { ...tessera, 'content-type': 'application/json' };
  return [
    {
      name: 'hello-uws',
      description: 'plain uWebSockets.js server, GET / → small JSON: the HTTP limit every ratio refers to',
      server: 'hello-uws',
      method: 'GET',
      path: '/',
      headers: { host: TESSERA_HOST_HEADER },
      expectedStatus: 200,
      wrk: true,
    },
    {
      name: 'hello-node',
      description: 'plain node:http server, GET / → small JSON',
      server: 'hello-node',
      method: 'GET',
      path: '/',
      headers: { host: TESSERA_HOST_HEADER },
      expectedStatus: 200,
      wrk: false,
    },
    {
      name: 'get-organization',
      description: 'GetOrganization over JSON/HTTP: host → instance, PAT check, permission, one LMDB row read, proto3 JSON',
      server: 'tessera',
      method: 'GET',
      path: `${ORGANIZATIONS_PATH}/${seed.organizationId}`,
      headers: tessera,
      expectedStatus: 200,
      wrk: true,
    },
    {
      name: 'search-organizations',
      description: 'SearchOrganizations, no filter, first 10 of the seeded organizations (query.limit=10)',
      server: 'tessera',
      method: 'POST',
      path: `${ORGANIZATIONS_PATH}/_search?query.limit=10`,
      headers: json,
      body: '[]',
      expectedStatus: 200,
      wrk: false,
    },
    {
      name: 'jwks',
      description: 'the instance key set (GET /oauth/v2/keys), cacheable: a fast path',
      server: 'tessera',
      method: 'GET',
      path: JWKS_PATH,
      headers: { host: TESSERA_HOST_HEADER },
      expectedStatus: 200,
      wrk: true,
    },
    {
      name: 'discovery',
      description: 'OpenID Connect discovery document (GET /.well-known/openid-configuration): a fast path',
      server: 'tessera',
      method: 'GET',
      path: DISCOVERY_PATH,
      headers: { host: TESSERA_HOST_HEADER },
      expectedStatus: 200,
      wrk: true,
    },
    ceilingScenario('ES256'),
    ceilingScenario('RS256'),
    ceilingScenario(undefined),
    clientCredentialsJwt(seed, 'ES256'),
    clientCredentialsJwt(seed, 'RS256'),
    clientCredentialsOpaque(seed),
    {
      name: 'introspection',
      description: 'introspection of an opaque access token by an API app (client_secret_basic)',
      server: 'tessera',
      method: 'POST',
      path: INTROSPECT_PATH,
      headers: { host: TESSERA_HOST_HEADER, authorization: seed.oidc.introspectorAuthorization, 'content-type': FORM },
      body: seed.oidc.introspectionBody,
      expectedStatus: 200,
      wrk: false,
      checkPreflight: (body) => (body.includes('"active":true') ? undefined : `token not active: ${body.slice(0, 200)}`),
    },
    {
      name: 'userinfo',
      description: 'userinfo with a JWT access token of a service user (scopes openid profile)',
      server: 'tessera',
      method: 'GET',
      path: USERINFO_PATH,
      headers: { host: TESSERA_HOST_HEADER, authorization: `Bearer ${seed.oidc.userinfoToken}` },
      expectedStatus: 200,
      wrk: false,
    },
    createOrganization(seed, runId),
    // The same token and write scenarios on the node whose store is PostgreSQL (own seed, own data).
    onPostgres(clientCredentialsJwt(pgSeed, 'ES256')),
    onPostgres(clientCredentialsOpaque(pgSeed)),
    onPostgres(createOrganization(pgSeed, `${runId}-pg`)),
  ];
}

/** The ceiling server's clients (ceiling-server.ts) and their secret, made up per run. */
const CEILING_SECRET = randomBytes(24).toString('base64url');
const CEILING_CLIENTS = { ES256: 'ceiling-es256', RS256: 'ceiling-rs256', opaque: 'ceiling-opaque' } as const;
/** Issue 13's targets: Tessera per server CPU-s as a share of the ceiling's (RS256's target is the raw signing rate: its ceiling row has none). */
const CEILING_TARGETS = { ES256: 0.8, opaque: 0.6 } as const;

/** The same token request against the ceiling server: a JWT of `algorithm`, or opaque when it is undefined. */
function ceilingScenario(algorithm: TokenAlgorithm | undefined): Scenario {
  const client = algorithm === undefined ? CEILING_CLIENTS.opaque : CEILING_CLIENTS[algorithm];
  return {
    name: client,
    description: `the ceiling (bench/ceiling-server.ts: uWS + node:crypto, Basic auth by SHA-256 + timingSafeEqual): client_credentials → ${algorithm === undefined ? 'opaque token kept in a Map' : `${algorithm} JWT signed on the event loop`}`,
    server: 'ceiling',
    method: 'POST',
    path: TOKEN_PATH,
    headers: { host: TESSERA_HOST_HEADER, authorization: basicAuthorization(client, CEILING_SECRET), 'content-type': FORM },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid profile' }).toString(),
    expectedStatus: 200,
    wrk: false,
    // A JWT ceiling beside the raw signing rate too: how near the least possible endpoint comes to it.
    ...(algorithm === undefined ? {} : { limit: { kind: 'signing', algorithm } }),
    checkPreflight: tokenOfAlgorithm(algorithm),
  };
}

function clientCredentialsJwt(seed: Seed, algorithm: TokenAlgorithm): Scenario {
  return {
    ceiling: algorithm === 'ES256' ? { scenario: CEILING_CLIENTS.ES256, target: CEILING_TARGETS.ES256 } : { scenario: CEILING_CLIENTS.RS256 },
    name: `client-credentials-jwt-${algorithm.toLowerCase()}`,
    description: `client_credentials (client_secret_basic, service user with JWT access tokens), ${algorithm} signing key active`,
    server: 'tessera',
    method: 'POST',
    path: TOKEN_PATH,
    headers: { host: TESSERA_HOST_HEADER, authorization: seed.oidc.jwtClientAuthorization, 'content-type': FORM },
    body: seed.oidc.tokenBody,
    expectedStatus: 200,
    // ES256 is the token scenario of issue 13's worker target; wrk leaves more of a core to the server.
    wrk: algorithm === 'ES256',
    limit: { kind: 'signing', algorithm },
    prepare: () => seed.useAlgorithm(algorithm),
    checkPreflight: tokenOfAlgorithm(algorithm),
  };
}

function clientCredentialsOpaque(seed: Seed): Scenario {
  return {
    ceiling: { scenario: CEILING_CLIENTS.opaque, target: CEILING_TARGETS.opaque },
    name: 'client-credentials-opaque',
    description: 'client_credentials (client_secret_basic, service user with opaque access tokens): one stored token per request',
    server: 'tessera',
    method: 'POST',
    path: TOKEN_PATH,
    headers: { host: TESSERA_HOST_HEADER, authorization: seed.oidc.opaqueClientAuthorization, 'content-type': FORM },
    body: seed.oidc.tokenBody,
    expectedStatus: 200,
    wrk: false,
    limit: { kind: 'hello-uws' },
    checkPreflight: tokenOfAlgorithm(undefined),
  };
}

function createOrganization(seed: Seed, runId: string): Scenario {
  let created = 0;
  return {
    name: 'create-organization',
    description: 'CreateOrganization with a unique name per request: a write (actor mailbox, unique-name claim, durable LMDB commit)',
    server: 'tessera',
    method: 'POST',
    path: ORGANIZATIONS_PATH,
    headers: { host: TESSERA_HOST_HEADER, authorization: `Bearer ${seed.token}`, 'content-type': 'application/json' },
    body: () => JSON.stringify({ name: `bench ${runId} ${created++}` }),
    expectedStatus: 201,
    wrk: false,
  };
}

/** The same scenario against the Tessera node on PostgreSQL: name suffixed `-pg`. */
function onPostgres(scenario: Scenario): Scenario {
  return {
    ...scenario,
    name: `${scenario.name}-pg`,
    description: `${scenario.description.replace('durable LMDB commit', 'PostgreSQL transaction')} — store: PostgreSQL`,
    server: 'tessera-pg',
    // The comparison with the LMDB twin reads the autocannon runs.
    wrk: false,
  };
}

const kib = (value: number): string => `${(value / 1024).toFixed(1)} MiB`;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function describeRun(run: RunMeasurement): string {
  const client = run.clientCpuShare === undefined ? '' : `, client CPU ${Math.round(run.clientCpuShare * 100)} %`;
  const bad = run.non2xx + run.errors + run.timeouts;
  return (
    `${Math.round(run.reqPerSec).toLocaleString('en-US')} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms` +
    `${bad > 0 ? `, ${bad} non-2xx/errors` : ''}, server CPU ${run.serverCpuS.toFixed(2)} s → ` +
    `${Math.round(run.reqPerServerCpuS).toLocaleString('en-US')} req/CPU-s${client}` +
    `${run.contended ? ` — CONTENDED: other processes used ${describeOthers(run)}` : ''}`
  );
}

/** The server's busiest threads during a run, in cores (the main thread is the one whose id is the pid). */
function describeThreads(run: RunMeasurement, pid: number): string {
  const shown = run.serverThreads.slice(0, 6).map((thread) => `${thread.tid === pid ? 'main' : `${thread.name}/${thread.tid}`} ${(thread.cpuS / run.durationS).toFixed(2)}`);
  const rest = run.serverThreads.slice(6).reduce((sum, thread) => sum + thread.cpuS, 0);
  return `server threads (cores): ${shown.join(' · ')}${rest > 0 ? ` · ${run.serverThreads.length - 6} others ${(rest / run.durationS).toFixed(2)}` : ''}`;
}

/**
 * Server CPU per response by thread (µs, user + sys) and the LMDB commits of the run: where a
 * durable write's cost goes (the main thread; lmdb-js's writer and fsync on the libuv pool; V8's
 * GC helpers). Threads are shown by id: Node starts V8's platform threads before the libuv pool.
 */
function describeCostPerResponse(run: RunMeasurement, pid: number): string {
  const perResponse = (seconds: number): string => ((seconds * 1e6) / Math.max(1, run.responses)).toFixed(1);
  const threads = [...run.serverThreads].sort((a, b) => (a.tid === pid ? -1 : b.tid === pid ? 1 : a.tid - b.tid));
  const shown = threads.map((thread) => `${thread.tid === pid ? 'main' : thread.tid} ${perResponse(thread.cpuS)} (${perResponse(thread.userS)}+${perResponse(thread.sysS)})`);
  const commits = run.lmdbCommits;
  const lmdb = commits === undefined ? '' : `; ${Math.round(commits / run.durationS).toLocaleString('en-US')} LMDB commits/s, ${commits > 0 ? (run.responses / commits).toFixed(1) : '—'} responses per commit`;
  return `µs per response (user+sys): ${shown.join(' · ')} · all ${perResponse(run.serverCpuS)}${lmdb}`;
}

function describeOthers(run: RunMeasurement): string {
  const parts = [
    run.othersOnServerCpu === undefined ? undefined : `${run.othersOnServerCpu.toFixed(2)} of the server's core`,
    run.othersOnClientCpu === undefined ? undefined : `${run.othersOnClientCpu.toFixed(2)} of the client's core`,
    run.othersOnMachine === undefined ? undefined : `${run.othersOnMachine.toFixed(2)} cores`,
  ];
  return parts.filter((part) => part !== undefined).join(', ');
}

function decidePinning(settings: Settings): Pinning {
  const unpinned = (detail: string): Pinning => ({ pinned: false, detail, serverCpu: undefined, clientCpu: undefined });
  if (!settings.pin) return unpinned('BENCH_PIN=0');
  // Pinned, every thread of the node shares one core: worker counts could not differ.
  if (settings.workers !== undefined) return unpinned('BENCH_WORKERS');
  if (findExecutable('taskset') === undefined) return unpinned('taskset not found');
  const cpus = allowedCpus();
  if (cpus === undefined || cpus.length < 2) return unpinned('fewer than 2 CPUs available');
  const [clientCpu, serverCpu] = cpus as [number, number];
  try {
    pinSelf(clientCpu);
  } catch (error) {
    return unpinned(describeError(error));
  }
  return { pinned: true, detail: `servers on CPU ${serverCpu}, load generator (this process, wrk) on CPU ${clientCpu}`, serverCpu, clientCpu };
}

function wrkVersion(path: string): string {
  const result = spawnSync(path, ['-v'], { encoding: 'utf8' });
  const first = `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').find((line) => line.trim() !== '');
  // "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" → "wrk debian/4.1.0-3+b2 [epoll]"
  return first?.replace(/\s*Copyright.*$/, '').trim() ?? 'wrk (unknown version)';
}

function commandLine(env: NodeJS.ProcessEnv): string {
  const settings = Object.entries(env)
    .filter(([name]) => name.startsWith('BENCH_') || name.startsWith('TESSERA_'))
    .map(([name, value]) => `${name}=${name === 'TESSERA_MASTERKEY' ? '…' : (value ?? '')}`)
    .sort();
  const command = env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'node dist/bench/run.js';
  return [...settings, command].join(' ');
}

/** A run where more than this share of requests failed makes the scenario fail. */
const MAX_BAD_SHARE = 0.01;

function badShare(run: RunMeasurement): number {
  const bad = run.non2xx + run.errors + run.timeouts;
  return bad / Math.max(1, run.responses);
}

interface Target {
  readonly server: ServerProcess;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** The server's LMDB directory (a Tessera node on LMDB): commits per run are counted. */
  readonly lmdbDir?: string;
}

async function runScenario(
  scenario: Scenario,
  { server, origin, lmdbDir }: Target,
  settings: Settings,
  ticksPerSecond: number,
  pinning: Pinning,
  wrkPath: string | undefined,
  database: BenchDatabase | undefined,
  /** BENCH_WORKERS: the node's worker count, recorded with the result and its threads logged per run. */
  workers?: number,
): Promise<ScenarioResult> {
  const base = {
    name: scenario.name,
    ...(workers === undefined ? {} : { workers }),
    description: scenario.description,
    server: scenario.server,
    method: scenario.method,
    path: scenario.path,
    expectedStatus: scenario.expectedStatus,
    ...(scenario.limit === undefined ? {} : { limit: scenario.limit }),
    ...(scenario.ceiling === undefined ? {} : { ceiling: scenario.ceiling }),
  };
  const spec: LoadSpec = {
    origin,
    method: scenario.method,
    path: scenario.path,
    headers: scenario.headers,
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
    connections: settings.connections,
    pipelining: settings.pipelining,
    durationS: settings.durationS,
  };
  const target: CpuTarget = { pid: server.pid, ticksPerSecond, serverCpu: pinning.serverCpu, clientCpu: pinning.clientCpu, ...(lmdbDir === undefined ? {} : { lmdbDir }) };
  const results: ToolResult[] = [];
  /** CPU-s of the node's PostgreSQL backends per measured autocannon run (null: not readable). */
  const postgresCpuS: (number | null)[] = [];
  const withPostgres = () => (database === undefined ? {} : { postgresCpuS });
  const alive = (): void => {
    const code = server.exitCode();
    if (code !== undefined) throw new Error(`${server.name} exited with ${code}:\n${server.recentOutput()}`);
  };
  let wrkSkipped: string | undefined;
  if (scenario.wrk && wrkPath === undefined) wrkSkipped = settings.wrk ? 'wrk not installed' : 'BENCH_WRK=0';
  try {
    log(`\n[${scenario.name}${workers === undefined ? '' : `, ${workers} worker${workers === 1 ? '' : 's'}`}] ${scenario.method} ${scenario.path}`);
    if (scenario.prepare !== undefined) {
      const note = await scenario.prepare();
      if (note !== undefined) log(`  ${note}`);
    }
    const body = typeof scenario.body === 'function' ? scenario.body() : scenario.body;
    const preflight = await httpRequest(origin, scenario.method, scenario.path, scenario.headers, body);
    if (preflight.status !== scenario.expectedStatus) {
      throw new Error(`preflight got HTTP ${preflight.status} (expected ${scenario.expectedStatus}): ${preflight.body.slice(0, 300)}`);
    }
    const wrong = scenario.checkPreflight?.(preflight.body);
    if (wrong !== undefined) throw new Error(`preflight: ${wrong}`);
    if (settings.warmupS > 0) {
      log(`  warm-up ${settings.warmupS} s`);
      await measureAutocannon({ ...spec, durationS: settings.warmupS }, target);
      alive();
    }
    const runs: RunMeasurement[] = [];
    for (let i = 1; i <= settings.runs; i++) {
      const before = await database?.backendCpu();
      const run = await measureAutocannon(spec, target);
      const after = await database?.backendCpu();
      alive();
      runs.push(run);
      const pgCpu = before !== undefined && after !== undefined ? backendCpuDelta(before, after) : null;
      if (database !== undefined) postgresCpuS.push(pgCpu);
      const pgNote = database === undefined ? '' : `; PostgreSQL backends ${pgCpu === null ? 'not measurable' : `${pgCpu.toFixed(2)} CPU-s`}`;
      log(`  autocannon ${i}/${settings.runs}: ${describeRun(run)}${pgNote}`);
      if (workers !== undefined) log(`    ${describeThreads(run, server.pid)}`);
      log(`    ${describeCostPerResponse(run, server.pid)}`);
    }
    results.push(toolResult('autocannon', runs));
    if (scenario.wrk && wrkPath !== undefined) {
      const wrkRuns: RunMeasurement[] = [];
      for (let i = 1; i <= settings.runs; i++) {
        const run = await measureWrk(spec, target, { wrk: wrkPath, cpu: pinning.clientCpu });
        alive();
        wrkRuns.push(run);
        log(`  wrk ${i}/${settings.runs}: ${describeRun(run)}`);
        if (workers !== undefined) log(`    ${describeThreads(run, server.pid)}`);
      }
      results.push(toolResult('wrk', wrkRuns));
    }
    if (wrkSkipped !== undefined) log(`  wrk skipped: ${wrkSkipped}`);
    const failing = results.flatMap((result) => result.runs.map((run) => ({ tool: result.tool, run }))).find(({ run }) => badShare(run) > MAX_BAD_SHARE);
    if (failing !== undefined) {
      const { tool, run } = failing;
      throw new Error(`${tool}: ${run.non2xx + run.errors + run.timeouts} of ${run.responses} requests failed (non-2xx, errors, timeouts) ${JSON.stringify(run.statusCodes)}`);
    }
    return { ...base, results, ...withPostgres(), ...(wrkSkipped === undefined ? {} : { wrkSkipped }) };
  } catch (error) {
    const code = server.exitCode();
    // A refused connection usually means the server died: say so, with its last words.
    const message = code === undefined || describeError(error).includes('exited with') ? describeError(error) : `${describeError(error)} (${server.name} had exited with ${code})`;
    log(`  FAILED: ${message}`);
    return { ...base, results, ...withPostgres(), ...(wrkSkipped === undefined ? {} : { wrkSkipped }), error: message };
  }
}

/** BENCH_WORKERS compares worker counts of the LMDB node on named scenarios; the node's own TESSERA_WORKERS would override it. */
function checkWorkerComparison(settings: Settings, env: NodeJS.ProcessEnv): void {
  if (env.TESSERA_WORKERS !== undefined) throw new Error('BENCH_WORKERS sets TESSERA_WORKERS for each node: unset TESSERA_WORKERS');
  const names = [...(settings.only ?? [])];
  const studies: readonly string[] = STUDY_NAMES;
  if (settings.only === undefined || names.some((name) => name.endsWith('-pg') || studies.includes(name))) {
    throw new Error('BENCH_WORKERS runs the scenarios named in BENCH_SCENARIOS on the LMDB node: name them, without studies or -pg scenarios');
  }
}

function withWorkers(defaults: Readonly<Record<string, string>>, workers: number | undefined): Record<string, string> {
  return workers === undefined ? { ...defaults } : { ...defaults, TESSERA_WORKERS: String(workers) };
}

/**
 * Which worker answers fresh connections: `count` requests to /healthz, each on a new connection,
 * tallied by `x-tessera-worker` (SO_REUSEPORT hashes each connection to one listening worker; a
 * one-thread node sends no such header).
 */
async function workerSpread(origin: string, count = 100): Promise<string> {
  const tally = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const worker = await new Promise<string>((resolve, reject) => {
      const req = nodeRequest(new URL('/healthz', origin), { agent: false, headers: { host: TESSERA_HOST_HEADER } }, (res) => {
        res.resume();
        res.once('end', () => resolve(String(res.headers['x-tessera-worker'] ?? 'none')));
      });
      req.once('error', reject);
      req.end();
    });
    tally.set(worker, (tally.get(worker) ?? 0) + 1);
  }
  const spread = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([worker, n]) => `worker ${worker}: ${n}`);
  return `${count} fresh connections by x-tessera-worker: ${spread.join(', ')}`;
}

/** Seeds organizations (and the OIDC clients when needed) into one node; returns its Seed. */
async function seedNode(node: TesseraNode, label: string, organizations: number, runId: string, oidcNeeded: boolean): Promise<{ seed: Seed; seconds: number; organizations: number }> {
  const seedStart = performance.now();
  const ids = await seedOrganizations(node, organizations, `bench ${runId}`);
  const seconds = (performance.now() - seedStart) / 1000;
  log(`bench: ${label}: seeded ${ids.length} organizations in ${seconds.toFixed(1)} s (${Math.round(ids.length / seconds)}/s, 8 in flight)`);
  let oidc = EMPTY_OIDC_SEED;
  if (oidcNeeded) {
    const oidcStart = performance.now();
    oidc = await seedOidc(node, runId);
    log(`bench: ${label}: seeded OIDC (2 service users, 1 API app, 2 tokens) in ${((performance.now() - oidcStart) / 1000).toFixed(1)} s`);
  }
  const seed: Seed = {
    organizationId: ids[Math.floor(ids.length / 2)] ?? ids[0]!,
    token: node.adminToken,
    oidc,
    useAlgorithm: async (algorithm) => {
      const rotations = await ensureSigningAlgorithm(node, algorithm);
      return rotations === 0 ? `active signing key already ${algorithm}` : `rotated the signing keys ${rotations}× to make ${algorithm} active`;
    },
  };
  return { seed, seconds, organizations: ids.length };
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const settings = readSettings(process.env);
  if (settings.workers !== undefined) checkWorkerComparison(settings, process.env);
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  try {
    const ticksPerSecond = clockTicksPerSecond();
    const machine = machineFacts(ticksPerSecond, loadavg()[0] ?? 0);
    const pinning = decidePinning(settings);
    const wrkPath = settings.wrk ? findExecutable('wrk') : undefined;
    const wrk = wrkPath === undefined ? (settings.wrk ? 'wrk not installed' : 'disabled (BENCH_WRK=0)') : wrkVersion(wrkPath);
    log(`bench: ${machine.cpuModel}, nproc ${machine.nproc}, Node ${machine.node}; ${pinning.pinned ? 'pinned' : 'unpinned'} (${pinning.detail}); ${wrk}`);

    const helloEnv = { PATH: process.env.PATH ?? '' };
    const start = async (engine: 'uws' | 'node'): Promise<Target> => {
      const server = await spawnServer({ name: `hello-${engine}`, cleanup, args: [HELLO_SERVERS, engine], env: helloEnv, cpu: pinning.serverCpu });
      const port = Number(server.listening.port);
      if (!Number.isInteger(port) || port <= 0) throw new Error(`hello-${engine} reported no port: ${JSON.stringify(server.listening)}`);
      return { server, origin: `http://127.0.0.1:${port}` };
    };
    const runId = startedAt.getTime().toString(36);
    let postgresSkipped: string | undefined;
    const select = (seed: Seed, pgSeed: Seed = seed): Scenario[] => {
      const all = scenarios(seed, runId, pgSeed);
      const known = [...all.map((s) => s.name), ...STUDY_NAMES];
      const unknown = [...(settings.only ?? [])].filter((name) => !known.includes(name));
      if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS names unknown scenarios: ${unknown.join(', ')} (known: ${known.join(', ')})`);
      // Without a database the -pg scenarios are dropped (the reason was printed), never failed.
      return all.filter((s) => (settings.only === undefined || settings.only.has(s.name)) && (postgresSkipped === undefined || s.server !== 'tessera-pg'));
    };
    const unseeded: Seed = { organizationId: '', token: '', oidc: EMPTY_OIDC_SEED, useAlgorithm: async () => undefined };
    let database: BenchDatabase | undefined;
    if (select(unseeded).some((s) => s.server === 'tessera-pg')) {
      const opened = await openBenchDatabase(process.env, runId, ticksPerSecond, cleanup);
      if (typeof opened === 'string') {
        postgresSkipped = opened;
        log(`bench: PostgreSQL scenarios skipped: ${opened}`);
      } else {
        database = opened;
        log(`bench: PostgreSQL scenarios on ${new URL(opened.url).host}, schema ${opened.schema}`);
      }
    }
    const isOidc = (s: Scenario) => s.path.startsWith('/oauth/') || s.path.startsWith('/oidc/');
    select(unseeded); // names checked before anything starts
    const studies = new Set<StudyName>(STUDY_NAMES.filter((name) => settings.only === undefined || settings.only.has(name)));
    // rss-opaque and tenant-fairness load the main node with the seeded service users.
    const studiesOnMain = studies.has('es256-p99-at-80') || studies.has('rss-opaque') || studies.has('tenant-fairness') || studies.has('login-totp');
    const needsTessera = studiesOnMain || select(unseeded).some((s) => s.server === 'tessera');
    const needsOidc = studiesOnMain || select(unseeded).some((s) => s.server === 'tessera' && isOidc(s));
    // Instances are created through the system API as this system user.
    const system = createSystemUser();
    const tesseraDefaults: Record<string, string> = { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_SYSTEM_USERS: system.env };
    const needsPg = database !== undefined && select(unseeded).some((s) => s.server === 'tessera-pg');
    const needsPgOidc = select(unseeded).some((s) => s.server === 'tessera-pg' && isOidc(s));
    const signingAlgorithms = [
      ...new Set(select(unseeded).flatMap((s) => (s.limit?.kind === 'signing' ? [s.limit.algorithm] : []))),
    ];

    const startCeiling = async (): Promise<Target> => {
      const server = await spawnServer({ name: 'ceiling', cleanup, args: [CEILING_SERVER], env: { ...helloEnv, BENCH_CEILING_SECRET: CEILING_SECRET }, cpu: pinning.serverCpu });
      const port = Number(server.listening.port);
      if (!Number.isInteger(port) || port <= 0) throw new Error(`ceiling reported no port: ${JSON.stringify(server.listening)}`);
      return { server, origin: `http://127.0.0.1:${port}` };
    };
    const needsCeiling = studies.has('ceiling-es256-p99-at-80') || select(unseeded).some((s) => s.server === 'ceiling');
    const starting = [
      start('uws'),
      start('node'),
      needsCeiling ? startCeiling() : undefined,
      // ES256 keys from the first start (the benchmark default); RS256 scenarios rotate twice.
      needsTessera ? startTessera({ main: TESSERA_MAIN, cpu: pinning.serverCpu, cleanup, defaults: withWorkers(tesseraDefaults, settings.workers?.[0]) }) : undefined,
      // The same node on PostgreSQL, pinned to the same core; PGAPPNAME tags its connections.
      needsPg && database !== undefined
        ? startTessera({
            main: TESSERA_MAIN,
            cpu: pinning.serverCpu,
            cleanup,
            defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_DATABASE_URL: database.url, TESSERA_DATABASE_SCHEMA: database.schema, PGAPPNAME: database.appName },
          })
        : undefined,
    ] as const;
    // allSettled first: never leave the cleanup while a server is still starting.
    await Promise.allSettled(starting);
    const [helloUws, helloNode, ceiling, tessera, tesseraPg] = await Promise.all(starting);
    const watch = (server: ServerProcess): void => {
      void server.exited.then((code) => {
        if (!server.stopRequested()) log(`\nbench: ${server.name} (pid ${server.pid}) exited unexpectedly with ${code}; its last output:\n${server.recentOutput()}\n`);
      });
    };
    for (const server of [helloUws.server, helloNode.server, ceiling?.server, tessera?.server, tesseraPg?.server]) {
      if (server !== undefined) watch(server);
    }
    log(`bench: servers up (hello-uws pid ${helloUws.server.pid}, hello-node pid ${helloNode.server.pid}${ceiling === undefined ? '' : `, ceiling pid ${ceiling.server.pid}`}${tessera === undefined ? ', tessera not needed' : `, tessera pid ${tessera.server.pid}, adapter ${tessera.httpAdapter}`}${tesseraPg === undefined ? '' : `, tessera-pg pid ${tesseraPg.server.pid}`})`);

    let seed: Seed = unseeded;
    let seedSeconds = 0;
    let seeded = 0;
    const studyResults: Studies = {};
    if (tessera !== undefined) {
      const afterStart = memoryOf(tessera.server.pid);
      const seededNode = await seedNode(tessera, 'tessera', settings.organizations, runId, needsOidc);
      ({ seed, seconds: seedSeconds, organizations: seeded } = seededNode);
      if (settings.workers !== undefined) log(`bench: tessera: ${await workerSpread(tessera.origin)}`);
      studyResults.idleMemory = { afterStart, afterSeed: memoryOf(tessera.server.pid) };
      log(`bench: tessera RSS ${kib(afterStart.rssKiB)} / RssAnon ${kib(afterStart.rssAnonKiB)} after start, ${kib(studyResults.idleMemory.afterSeed.rssKiB)} / ${kib(studyResults.idleMemory.afterSeed.rssAnonKiB)} after seeding`);
    }
    let pgSeed: Seed = unseeded;
    let pgSeedSeconds = 0;
    if (tesseraPg !== undefined) {
      ({ seed: pgSeed, seconds: pgSeedSeconds } = await seedNode(tesseraPg, 'tessera-pg', settings.organizations, runId, needsPgOidc));
    }

    // The raw signing rate of this machine, on the server's core, for every algorithm a selected
    // scenario is compared with (benchmarking.md: every figure beside its limit, same run).
    const signingRates: SigningRateResult[] = [];
    for (const algorithm of signingAlgorithms) {
      const runs: SigningRate[] = [];
      for (let i = 1; i <= settings.runs; i++) {
        const rate = await measureSigningRate({ algorithm, seconds: settings.durationS, cpu: pinning.serverCpu });
        runs.push(rate);
        log(
          `bench: raw ${algorithm} signing ${i}/${settings.runs}: ${Math.round(rate.perSecond).toLocaleString('en-US')} /s, ${Math.round(rate.perCpuSecond).toLocaleString('en-US')} per CPU-s${rate.cpu === undefined ? '' : ` on CPU ${rate.cpu}`}`,
        );
      }
      const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
      signingRates.push({ algorithm, runs, median: median(runs.map((r) => r.perSecond)), medianPerCpuSecond: median(runs.map((r) => r.perCpuSecond)) });
    }

    // BENCH_WORKERS: the limit of a worker ratio on this machine, two busy threads against one
    // (raw ES256 signing, separate processes, unpinned, the servers idle).
    let machineScaling: BenchReport['machineScaling'];
    if (settings.workers !== undefined) {
      const alone = await measureSigningRate({ algorithm: 'ES256', seconds: settings.durationS });
      const pair = await Promise.all([0, 1].map(() => measureSigningRate({ algorithm: 'ES256', seconds: settings.durationS })));
      machineScaling = { alone, pair };
      const perSecond = pair.reduce((total, r) => total + r.perSecond, 0);
      log(
        `bench: raw ES256 signing, one process alone ${Math.round(alone.perSecond).toLocaleString('en-US')} /s (${Math.round(alone.perCpuSecond).toLocaleString('en-US')} per CPU-s), two at once ${Math.round(perSecond).toLocaleString('en-US')} /s (${pair.map((r) => Math.round(r.perCpuSecond).toLocaleString('en-US')).join(' and ')} per CPU-s): ${(perSecond / alone.perSecond).toFixed(2)}×`,
      );
    }

    const targets: Record<ServerName, Target | undefined> = {
      'hello-uws': helloUws,
      'hello-node': helloNode,
      ceiling,
      tessera: tessera === undefined ? undefined : { server: tessera.server, origin: tessera.origin, lmdbDir: join(tessera.dataDir, 'lmdb') },
      'tessera-pg': tesseraPg === undefined ? undefined : { server: tesseraPg.server, origin: tesseraPg.origin },
    };
    const results: ScenarioResult[] = [];
    for (const scenario of select(seed, pgSeed)) {
      const target = targets[scenario.server];
      if (target === undefined) throw new Error(`no ${scenario.server} server for ${scenario.name}`);
      const workers = scenario.server === 'tessera' ? settings.workers?.[0] : undefined;
      results.push(await runScenario(scenario, target, settings, ticksPerSecond, pinning, wrkPath, scenario.server === 'tessera-pg' ? database : undefined, workers));
    }
    // BENCH_WORKERS: the Tessera scenarios again on a fresh node per further worker count, one node at a time.
    let previous = tessera;
    for (const workers of settings.workers?.slice(1) ?? []) {
      if (previous === undefined) break;
      await previous.server.stop();
      const node = await startTessera({ main: TESSERA_MAIN, cpu: undefined, cleanup, defaults: withWorkers(tesseraDefaults, workers) });
      watch(node.server);
      log(`\nbench: tessera with ${workers} workers up (pid ${node.server.pid}, adapter ${node.httpAdapter})`);
      const { seed: nodeSeed } = await seedNode(node, `tessera (${workers} workers)`, settings.organizations, runId, needsOidc);
      log(`bench: tessera (${workers} workers): ${await workerSpread(node.origin)}`);
      for (const scenario of select(nodeSeed).filter((s) => s.server === 'tessera')) {
        results.push(await runScenario(scenario, { server: node.server, origin: node.origin }, settings, ticksPerSecond, pinning, wrkPath, undefined, workers));
      }
      previous = node;
    }

    const studyLoad = { connections: settings.connections, durationS: settings.durationS, log };
    const failedStudy = (error: unknown) => {
      log(`  FAILED: ${describeError(error)}`);
      return { error: describeError(error) };
    };
    /** The open loop at 80 % of `peakScenario`'s closed-loop peak (or BENCH_P99_RATE) against one server. */
    const openLoopStudy = (server: { pid: number }, origin: string, authorization: string, peakScenario: string) => {
      const peak = results.find((r) => r.name === peakScenario && r.error === undefined)?.results.find((r) => r.tool === 'autocannon')?.median;
      const target: CpuTarget = { pid: server.pid, ticksPerSecond, serverCpu: pinning.serverCpu, clientCpu: pinning.clientCpu };
      return p99AtLoadStudy({ origin, authorization, peakScenario, peak, rate: settings.p99Rate, runs: settings.runs, openLoopRuns: settings.p99Runs, warmupS: settings.warmupS, target, load: studyLoad }).catch(failedStudy);
    };
    const openLoopRate = (peakOf: string) => (settings.p99Rate === undefined ? `80 % of ${peakOf} closed-loop peak` : `${settings.p99Rate} req/s (BENCH_P99_RATE)`);
    if (studies.has('es256-p99-at-80') && tessera !== undefined) {
      log(`\n[es256-p99-at-80] ES256 tokens open loop at ${openLoopRate('the')}`);
      const prepared = await seed.useAlgorithm('ES256');
      if (prepared !== undefined) log(`  ${prepared}`);
      studyResults.p99AtLoad = await openLoopStudy(tessera.server, tessera.origin, seed.oidc.jwtClientAuthorization, 'client-credentials-jwt-es256');
    }
    if (studies.has('ceiling-es256-p99-at-80') && ceiling !== undefined) {
      log(`\n[ceiling-es256-p99-at-80] the ceiling server's ES256 tokens, open loop at ${openLoopRate('its')}`);
      studyResults.ceilingP99AtLoad = await openLoopStudy(ceiling.server, ceiling.origin, basicAuthorization(CEILING_CLIENTS.ES256, CEILING_SECRET), 'ceiling-es256');
    }
    if (studies.has('rss-opaque') && tessera !== undefined) {
      log(`\n[rss-opaque] RssAnon around ${settings.rssSeconds} s of opaque tokens and a ${settings.rssSettleSeconds} s pause`);
      const idle = studyResults.idleMemory?.afterSeed ?? memoryOf(tessera.server.pid);
      const target: CpuTarget = { pid: tessera.server.pid, ticksPerSecond, serverCpu: pinning.serverCpu, clientCpu: pinning.clientCpu };
      studyResults.rss = await rssStudy({
        node: tessera,
        opaqueAuthorization: seed.oidc.opaqueClientAuthorization,
        idle,
        runS: settings.rssSeconds,
        settleS: settings.rssSettleSeconds,
        target,
        load: studyLoad,
      }).catch(failedStudy);
    }
    if (studies.has('tenant-fairness') && tessera !== undefined) {
      log(`\n[tenant-fairness] instance B at ${settings.fairnessRate} req/s alone, then with instance A at full speed`);
      const prepared = await seed.useAlgorithm('ES256');
      if (prepared !== undefined) log(`  ${prepared}`);
      studyResults.fairness = await fairnessStudy({ node: tessera, system, aAuthorization: seed.oidc.jwtClientAuthorization, runId, rate: settings.fairnessRate, nice: settings.fairnessNice, load: studyLoad }).catch(failedStudy);
    }
    if (studies.has('login-totp') && tessera !== undefined) {
      log(`\n[login-totp] password + TOTP logins through the login UI for ${settings.loginSeconds} s beside the argon2id limit`);
      studyResults.login = await loginStudy({
        node: tessera,
        runId,
        users: settings.loginUsers,
        concurrency: settings.loginConcurrency,
        seconds: settings.loginSeconds,
        ticksPerSecond,
        log,
      }).catch(failedStudy);
    }
    if (studies.has('cold-instance')) {
      log(`\n[cold-instance] ${settings.instances} instances on a node of their own, restarted; first tokens of ${Math.min(settings.coldSample, settings.instances)}`);
      studyResults.cold = await coldStudy({
        main: TESSERA_MAIN,
        cpu: pinning.serverCpu,
        cleanup,
        defaults: tesseraDefaults,
        system,
        runId,
        instances: settings.instances,
        sample: settings.coldSample,
        settleMs: settings.coldSettleMs,
        warmProcessTokens: settings.coldWarmTokens,
        log,
      }).catch(failedStudy);
    }

    const report: BenchReport = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: commandLine(process.env),
      settings: {
        warmupS: settings.warmupS,
        durationS: settings.durationS,
        runs: settings.runs,
        connections: settings.connections,
        pipelining: settings.pipelining,
        organizationsSeeded: seeded,
      },
      machine,
      pinning,
      wrk,
      tessera: { httpAdapter: tessera?.httpAdapter ?? 'not started', seedSeconds },
      postgres:
        database !== undefined
          ? { schema: database.schema, seedSeconds: pgSeedSeconds }
          : postgresSkipped !== undefined
            ? { skipped: postgresSkipped }
            : undefined,
      signingRates,
      ...(machineScaling === undefined ? {} : { machineScaling }),
      scenarios: results,
      studies: studyResults,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `${report.startedAt.replace(/:/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\n${renderMarkdown(report)}\nFull results: ${file}\n`);
    const studyFailed = [studyResults.p99AtLoad, studyResults.ceilingP99AtLoad, studyResults.rss, studyResults.fairness, studyResults.cold, studyResults.login].some((r) => r !== undefined && 'error' in r);
    return studyFailed || results.some((r) => r.error !== undefined) ? 1 : 0;
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${describeError(error)}\n`);
    process.exit(1);
  },
);
