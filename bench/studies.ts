/**
 * The scenarios of issue 13 that are not one load against one request: the ES256 token
 * latency at 80 % of the peak rate (`es256-p99-at-80`, and the ceiling server's as a control,
 * `ceiling-es256-p99-at-80`), memory after an opaque-token run
 * (`rss-opaque`), fairness between two instances of one node (`tenant-fairness`) and the first
 * token of instances untouched since start (`cold-instance`).
 * Each returns a result for the JSON report and is rendered by renderStudies. See
 * bench/README.md for what they do and how to run them.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { measureAutocannon, measureOpenLoop, measurePaced, medianRun, schedstat, type CpuTarget, type LoadSpec, type OpenLoopRun, type PacedRun, type RunMeasurement } from './measure.js';
import { jwsAlgorithm, TOKEN_PATH } from './oidc.js';
import { renderLoginStudy, type LoginStudy } from './login-study.js';
import { clockTicksPerSecond, findExecutable, processCpuSeconds, type Cleanup } from './processes.js';
import { createInstance, createServiceClient, inParallel, type SystemUser } from './tenants.js';
import { httpRequest, memoryOf, startTessera, TESSERA_HOST_HEADER, type TesseraNode } from './tessera.js';

export const STUDY_NAMES = ['es256-p99-at-80', 'ceiling-es256-p99-at-80', 'rss-opaque', 'tenant-fairness', 'cold-instance', 'login-totp'] as const;
export type StudyName = (typeof STUDY_NAMES)[number];

const LOAD_PROCESS = fileURLToPath(new URL('./load-process.js', import.meta.url));
const FORM = 'application/x-www-form-urlencoded';
const TOKEN_BODY = new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid profile' }).toString();
/** Issue 13's targets. */
export const FAIRNESS_TARGET = 2;
export const COLD_P99_TARGET_MS = 5;
export const RSS_RETURN_TARGET = 0.2;
export const P99_AT_LOAD_TARGET_MS = 10;
/** es256-p99-at-80: the share of the closed-loop peak asked for. */
export const P99_AT_LOAD_SHARE = 0.8;

export interface Memory {
  readonly rssKiB: number;
  readonly rssAnonKiB: number;
}

export interface RssStudy {
  readonly runS: number;
  readonly settleS: number;
  readonly idle: Memory;
  readonly before: Memory;
  readonly afterRun: Memory;
  readonly afterSettle: Memory;
  readonly tokens: number;
  readonly reqPerSec: number;
}

export interface FairnessStudy {
  readonly rate: number;
  readonly connections: number;
  readonly durationS: number;
  readonly alone: PacedRun;
  readonly withA: PacedRun;
  /** The node's CPU during B's run alone and with A, in cores (with A near 1: A saturated the pinned node). */
  readonly serverCpu: { readonly alone: number; readonly withA: number };
  /** A's full-speed load (own process) while B was measured. */
  readonly a: LoadProcessRun;
}

/** What A's load process reports (bench/load-process.ts). */
export interface LoadProcessRun {
  readonly responses: number;
  readonly reqPerSec: number;
  readonly bad: number;
  /** The niceness it ran at (0: the runner's; BENCH_FAIRNESS_NICE, 19 by default since 2026-11-26). */
  readonly nice: number;
  /** Its own CPU during the run, as a share of one core. */
  readonly cpuShare: number | undefined;
}

export interface P99AtLoadStudy {
  /** The closed-loop peak (autocannon, median run) the rate is a share of. */
  readonly peak: {
    /** `client-credentials-jwt-es256` of the same run, or measured by the study itself. */
    readonly source: string;
    readonly reqPerSec: number;
    readonly p99Ms: number;
    readonly serverCpuShare: number;
    /** Requests per server CPU-second of the peak run, beside the open loop's (`run.achievedRate / run.serverCpuShare`). */
    readonly reqPerServerCpuS: number;
    readonly contended: boolean;
  };
  /** The rate asked for as a share of the peak (undefined when BENCH_P99_RATE set the rate). */
  readonly share: number | undefined;
  /** The open-loop run with the median p99 (the verdict's); with BENCH_P99_RUNS=1 the only one. */
  readonly run: OpenLoopRun;
  /** Every open-loop run, in order (BENCH_P99_RUNS; runs of one build differ by the machine's episodes). */
  readonly runs: readonly OpenLoopRun[];
}

export interface ColdStudy {
  readonly instances: number;
  readonly sampled: number;
  readonly createS: number;
  readonly restartS: number;
  readonly first: Percentiles;
  /** The second token of the same instances: the warm control. */
  readonly second: Percentiles;
  /**
   * CPU time of the node's main thread per request (/proc/<pid>/task/<pid>/schedstat), and the
   * time it waited runnable for a CPU meanwhile (what a loaded machine adds to the wall time);
   * absent where schedstat is not readable.
   */
  readonly cpu?: { readonly first: Percentiles; readonly second: Percentiles; readonly firstWait: Percentiles; readonly secondWait: Percentiles };
  /** The node's very first token, on a cold instance that is not sampled (its code paths were cold too); absent when every instance is sampled. */
  readonly nodeFirst?: { readonly wallMs: number; readonly cpuMs?: number };
  /**
   * The same measure on as many other untouched instances after the process served
   * `tokens` tokens of one more instance: a cold instance in a process whose token path V8 has
   * compiled (right after a restart, V8's optimizing compiler runs on helper threads that share
   * the node's core with the main thread). Absent when BENCH_COLD_WARM_TOKENS is 0.
   */
  readonly warmProcess?: ColdSample & { readonly tokens: number };
  readonly idleAfterRestart: Memory;
}

/** First and second tokens of a set of untouched instances, one request at a time. */
export interface ColdSample {
  readonly sampled: number;
  readonly first: Percentiles;
  readonly second: Percentiles;
  readonly cpu?: ColdStudy['cpu'];
}

export interface Percentiles {
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface Studies {
  /** The node's memory after start and after start+seed (always measured when Tessera ran). */
  idleMemory?: { readonly afterStart: Memory; readonly afterSeed: Memory };
  p99AtLoad?: P99AtLoadStudy | { readonly error: string };
  /** The same open loop against the ceiling server (bench/ceiling-server.ts) at 80 % of its own peak. */
  ceilingP99AtLoad?: P99AtLoadStudy | { readonly error: string };
  rss?: RssStudy | { readonly error: string };
  fairness?: FairnessStudy | { readonly error: string };
  cold?: ColdStudy | { readonly error: string };
  login?: LoginStudy | { readonly error: string };
}

interface StudyLoad {
  readonly connections: number;
  readonly durationS: number;
  readonly log: (message: string) => void;
}

/**
 * RSS: RssAnon idle (after a BENCH_RSS_SETTLE pause, 30 s), right after a run of opaque tokens
 * (BENCH_RSS_SECONDS, 30) and after the same pause, beside the figure read right after start+seed.
 */
export async function rssStudy(options: {
  readonly node: TesseraNode;
  readonly opaqueAuthorization: string;
  readonly idle: Memory;
  readonly runS: number;
  readonly settleS: number;
  readonly target: CpuTarget;
  readonly load: StudyLoad;
}): Promise<RssStudy> {
  const { node, load } = options;
  const pid = node.server.pid;
  // The node's own idle trim (src/observability/idle-trim.ts) runs in its first quiet 10 s
  // intervals: the baseline is read after the same pause as the last reading, so both are quiet.
  await sleep(options.settleS * 1000);
  const before = memoryOf(pid);
  load.log(`  RssAnon after a ${options.settleS} s pause ${mib(before.rssAnonKiB)} (${await heapOf(node)}); opaque tokens for ${options.runS} s`);
  const run = await measureAutocannon(tokenSpec(node.origin, TESSERA_HOST_HEADER, options.opaqueAuthorization, load.connections, options.runS), options.target);
  if (run.non2xx + run.errors + run.timeouts > run.responses / 100) throw new Error(`opaque run: ${run.non2xx + run.errors + run.timeouts} of ${run.responses} failed ${JSON.stringify(run.statusCodes)}`);
  const afterRun = memoryOf(pid);
  load.log(`  ${run.responses} tokens (${Math.round(run.reqPerSec)} /s); RssAnon after ${mib(afterRun.rssAnonKiB)} (${await heapOf(node)}); settling ${options.settleS} s`);
  await sleep(options.settleS * 1000);
  const afterSettle = memoryOf(pid);
  load.log(`  RssAnon after the pause ${mib(afterSettle.rssAnonKiB)} (${await heapOf(node)})`);
  return { runS: options.runS, settleS: options.settleS, idle: options.idle, before, afterRun, afterSettle, tokens: run.responses, reqPerSec: run.reqPerSec };
}

/**
 * The node's V8 heap from its own /metrics (prom-client's process metrics, read after the
 * /proc figure beside it): committed and used per space, and external memory, in MiB, so a
 * change of RssAnon can be told apart into V8's heap and the rest (malloc, native buffers).
 */
async function heapOf(node: TesseraNode): Promise<string> {
  const result = await httpRequest(node.origin, 'GET', '/metrics', {});
  if (result.status !== 200) return `no heap figures: /metrics answered ${result.status}`;
  const value = (name: string, space?: string): number => {
    const label = space === undefined ? '' : `\\{space="${space}"\\}`;
    const match = new RegExp(`^tessera_nodejs_${name}${label} ([0-9.e+]+)$`, 'm').exec(result.body);
    return match === null ? Number.NaN : Number(match[1]) / 1_048_576;
  };
  const spaces = ['new', 'old', 'code', 'large_object'].map((space) => `${space} ${value('heap_space_size_used_bytes', space).toFixed(1)}/${value('heap_space_size_total_bytes', space).toFixed(1)}`);
  return `V8 heap used/committed MiB: ${value('heap_size_used_bytes').toFixed(1)}/${value('heap_size_total_bytes').toFixed(1)} (${spaces.join(', ')}); external ${value('external_memory_bytes').toFixed(1)}`;
}

/**
 * ES256 client_credentials at 80 % of the peak: the peak is the closed-loop rate of the
 * `client-credentials-jwt-es256` scenario (autocannon, `connections` connections), taken from
 * that scenario's median run when it ran before in the same run, measured here the same way
 * otherwise; then an open-loop load at `rate` (default 80 % of the peak), evenly paced, over
 * `connections` keep-alive connections, with latencies from the scheduled send time
 * (`measureOpenLoop`). `ceiling-es256-p99-at-80` runs the same against the ceiling server,
 * with the `ceiling-es256` scenario as its peak: the open loop's extra CPU per request on a
 * server with no scheduler, actors or logging of its own.
 */
export async function p99AtLoadStudy(options: {
  /** The server's origin (Tessera, or the ceiling server). */
  readonly origin: string;
  readonly authorization: string;
  /** The closed-loop scenario the peak comes from (`client-credentials-jwt-es256`, `ceiling-es256`). */
  readonly peakScenario: string;
  /** The median run of `peakScenario` in this run, when it ran. */
  readonly peak: RunMeasurement | undefined;
  /** Requests per second; 80 % of the peak when undefined. */
  readonly rate: number | undefined;
  /** Closed-loop runs for the peak when no `peak` is given. */
  readonly runs: number;
  /** Open-loop runs at the rate, each after its own warm-up. */
  readonly openLoopRuns: number;
  readonly warmupS: number;
  readonly target: CpuTarget;
  readonly load: StudyLoad;
}): Promise<P99AtLoadStudy> {
  const { origin, load } = options;
  const spec = tokenSpec(origin, TESSERA_HOST_HEADER, options.authorization, load.connections, load.durationS);
  const preflight = await httpRequest(origin, 'POST', TOKEN_PATH, spec.headers, TOKEN_BODY);
  if (preflight.status !== 200) throw new Error(`token: HTTP ${preflight.status} ${preflight.body.slice(0, 300)}`);
  if (jwsAlgorithm((JSON.parse(preflight.body) as { access_token?: string }).access_token ?? '') !== 'ES256') throw new Error(`the token is not an ES256 JWT: ${preflight.body.slice(0, 200)}`);
  let peak = options.peak;
  let source = `${options.peakScenario} (median run, same run)`;
  if (peak === undefined) {
    source = `measured here (autocannon, ${options.runs} × ${load.durationS} s, median)`;
    load.log(`  peak: closed loop, ${load.connections} connections, warm-up ${options.warmupS} s, ${options.runs} × ${load.durationS} s`);
    if (options.warmupS > 0) await measureAutocannon({ ...spec, durationS: options.warmupS }, options.target);
    const runs: RunMeasurement[] = [];
    for (let i = 0; i < options.runs; i++) runs.push(await measureAutocannon(spec, options.target));
    peak = medianRun(runs)!;
  }
  const rate = options.rate ?? Math.round(peak.reqPerSec * P99_AT_LOAD_SHARE);
  load.log(`  peak ${Math.round(peak.reqPerSec)} req/s (${source}; p99 ${peak.p99Ms} ms); open loop at ${rate} req/s over ${load.connections} connections for ${load.durationS} s (after ${options.warmupS} s at the same rate), ${options.openLoopRuns} run(s)`);
  const openLoops: OpenLoopRun[] = [];
  for (let i = 0; i < options.openLoopRuns; i++) {
    const run = await measureOpenLoop(spec, rate, options.target, options.warmupS);
    openLoops.push(run);
    load.log(
      `  sent ${Math.round(run.sentRate)} req/s, answered ${Math.round(run.achievedRate)} req/s (${run.bad} bad); p50 ${run.latency.p50Ms} ms, p90 ${run.latency.p90Ms} ms, p99 ${run.latency.p99Ms} ms, max ${run.latency.maxMs} ms; ` +
        `client's own lag (timer late) p99 ${run.dueLag.p99Ms} / max ${run.dueLag.maxMs} ms, send lag (with the wait for a free connection) p99 ${run.sendLag.p99Ms} ms, ${run.queuedInClient} waited for a connection, at most ${run.maxInFlight} in flight; client CPU ${Math.round(run.clientCpuShare * 100)} %, server CPU ${Math.round(run.serverCpuShare * 100)} %; req / server CPU-s ${Math.round(perCpuS(run))} open loop vs ${Math.round(peak.reqPerServerCpuS)} at the peak; waiting for a CPU: server ${pct(run.serverRunQueueShare)}, client ${pct(run.clientRunQueueShare)}${run.contended ? ' — CONTENDED' : ''}`,
    );
  }
  // The median by p99 (the lower middle one of an even count): what the verdict reads.
  const run = [...openLoops].sort((a, b) => a.latency.p99Ms - b.latency.p99Ms)[Math.floor((openLoops.length - 1) / 2)]!;
  return {
    peak: { source, reqPerSec: peak.reqPerSec, p99Ms: peak.p99Ms, serverCpuShare: peak.serverCpuShare, reqPerServerCpuS: peak.reqPerServerCpuS, contended: peak.contended },
    share: options.rate === undefined ? P99_AT_LOAD_SHARE : undefined,
    run,
    runs: openLoops,
  };
}

/**
 * Two instances on one node: B (created through the system API, its own service user) at a
 * fixed rate alone, then the same while A (the node's first instance) is loaded at full speed
 * by a load generator in its own process. ES256 client_credentials on both.
 */
export async function fairnessStudy(options: {
  readonly node: TesseraNode;
  readonly system: SystemUser;
  readonly aAuthorization: string;
  readonly runId: string;
  readonly rate: number;
  /**
   * The niceness of A's load process (BENCH_FAIRNESS_NICE, 19). It shares the client's core with
   * B's pacer (this process); at equal priority it can keep the pacer waiting for the core between
   * stamping a request and writing it, and between the reply's arrival and its reading, which
   * the server has no part in. On a real deployment A and B are different clients: the lowest
   * priority gives the core to B's pacer whenever it has work, and A's generator the rest (its
   * rate is printed beside B's figures).
   */
  readonly nice: number;
  readonly load: StudyLoad;
}): Promise<FairnessStudy> {
  const { node, load } = options;
  const b = await createInstance(node, options.system, `tenant-b-${options.runId}.bench`);
  const bAuthorization = await createServiceClient(node, b, `bench-b-${options.runId}`);
  const preflight = await httpRequest(node.origin, 'POST', TOKEN_PATH, { host: b.domain, authorization: bAuthorization, 'content-type': FORM }, TOKEN_BODY);
  if (preflight.status !== 200) throw new Error(`instance B's token: HTTP ${preflight.status} ${preflight.body.slice(0, 300)}`);
  const token = (JSON.parse(preflight.body) as { access_token?: string }).access_token ?? '';
  if (jwsAlgorithm(token) !== 'ES256') throw new Error(`instance B's token is not an ES256 JWT: ${preflight.body.slice(0, 200)}`);
  const bConnections = 10;
  const bSpec = tokenSpec(node.origin, b.domain, bAuthorization, bConnections, load.durationS);
  load.log(`  instance B ${b.domain}: ${options.rate} req/s over ${bConnections} connections, alone (after 1 s warm-up)`);
  await measurePaced({ ...bSpec, durationS: 1 }, options.rate);
  const ticks = clockTicksPerSecond();
  const pid = node.server.pid;
  let cpuBefore = processCpuSeconds(pid, ticks);
  const alone = await measurePaced(bSpec, options.rate);
  const serverAlone = (processCpuSeconds(pid, ticks) - cpuBefore) / alone.durationS;
  load.log(`  B alone: p50 ${alone.p50Ms} ms, p99 ${alone.p99Ms} ms (${alone.responses} responses, ${alone.bad} bad); node ${cores(serverAlone)} cores, this process ${cores(alone.cpuShare)} of the client core`);
  const aSpec = tokenSpec(node.origin, TESSERA_HOST_HEADER, options.aAuthorization, load.connections, load.durationS + 3);
  load.log(`  instance A at full speed (${load.connections} connections, own process), B again after 1.5 s`);
  const aRun = runLoadProcess(aSpec, options.nice);
  await sleep(1500);
  cpuBefore = processCpuSeconds(pid, ticks);
  const withA = await measurePaced(bSpec, options.rate);
  const serverWithA = (processCpuSeconds(pid, ticks) - cpuBefore) / withA.durationS;
  const a = await aRun;
  load.log(`  B with A: p50 ${withA.p50Ms} ms, p99 ${withA.p99Ms} ms (${withA.responses} responses, ${withA.bad} bad); node ${cores(serverWithA)} cores, this process ${cores(withA.cpuShare)} of the client core; A ${Math.round(a.reqPerSec)} req/s (${a.bad} bad) at nice ${a.nice}, its process ${cores(a.cpuShare)} of the client core`);
  return { rate: options.rate, connections: bConnections, durationS: load.durationS, alone, withA, serverCpu: { alone: round3(serverAlone), withA: round3(serverWithA) }, a };
}

/**
 * Cold instances: a node of its own with `instances` instances (system API; each sampled one
 * also gets a service user), restarted, then the first token of each sampled instance, one at a
 * time, and its second token as the warm control.
 */
export async function coldStudy(options: {
  readonly main: string;
  readonly cpu: number | undefined;
  readonly cleanup: Cleanup;
  readonly defaults: Readonly<Record<string, string>>;
  readonly system: SystemUser;
  readonly runId: string;
  readonly instances: number;
  readonly sample: number;
  /** Wait after the restart before the first token (0: at once, as traffic after a restart does). */
  readonly settleMs?: number;
  /** Tokens served on one more instance before a second sample of as many untouched instances (0: no second sample). */
  readonly warmProcessTokens?: number;
  readonly log: (message: string) => void;
}): Promise<ColdStudy> {
  const { log } = options;
  const warmTokens = options.warmProcessTokens ?? 0;
  // A second sample needs an instance for the warm-up tokens besides two sampled ones.
  const phases = warmTokens > 0 && options.instances >= 3 ? 2 : 1;
  const sample = Math.min(options.sample, phases === 2 ? Math.floor((options.instances - 1) / 2) : options.instances);
  const first = await startTessera({ main: options.main, cpu: options.cpu, cleanup: options.cleanup, defaults: options.defaults });
  // Sampled instances spread over the whole range; with two samples they alternate between them.
  const sampledIndexes = new Map(Array.from({ length: sample * phases }, (_, i) => [Math.floor((i * options.instances) / (sample * phases)), i % phases] as const));
  // One instance outside the sample takes the node's first token (and the warm-up tokens), so the sampled ones measure a cold instance, not a cold process.
  const warmUpIndex = Array.from({ length: options.instances }, (_, i) => i).find((i) => !sampledIndexes.has(i));
  let warmUp: { domain: string; authorization: string } | undefined;
  const createStart = performance.now();
  const clients: Map<string, string>[] = Array.from({ length: phases }, () => new Map());
  await inParallel(options.instances, 8, async (index) => {
    const instance = await createInstance(first, options.system, `cold-${String(index).padStart(5, '0')}-${options.runId}.bench`);
    const phase = sampledIndexes.get(index);
    if (phase !== undefined) clients[phase]!.set(instance.domain, await createServiceClient(first, instance, `bench-cold-${index}`));
    if (index === warmUpIndex) warmUp = { domain: instance.domain, authorization: await createServiceClient(first, instance, `bench-cold-${index}`) };
    if ((index + 1) % 100 === 0) log(`  ${index + 1} instances created`);
  });
  const createS = (performance.now() - createStart) / 1000;
  log(`  ${options.instances} instances (${sample * phases} with a service user) in ${createS.toFixed(1)} s; restarting the node`);
  await first.server.stop();
  const restartStart = performance.now();
  const node = await startTessera({ main: options.main, cpu: options.cpu, cleanup: options.cleanup, defaults: options.defaults, dataDir: first.dataDir });
  const restartS = (performance.now() - restartStart) / 1000;
  try {
    // Open the client's connection on the default instance, which no sampled instance is.
    await httpRequest(node.origin, 'GET', '/.well-known/openid-configuration', {});
    if ((options.settleMs ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
    const idleAfterRestart = memoryOf(node.server.pid);
    const pid = node.server.pid;
    const token = async (domain: string, authorization: string): Promise<{ wallMs: number; cpuMs?: number; waitMs?: number }> => {
      const before = schedstat(pid);
      const started = performance.now();
      const response = await httpRequest(node.origin, 'POST', TOKEN_PATH, { host: domain, authorization, 'content-type': FORM }, TOKEN_BODY);
      const wallMs = performance.now() - started;
      const after = schedstat(pid);
      if (response.status !== 200) throw new Error(`token of ${domain}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
      if (before === undefined || after === undefined) return { wallMs };
      return { wallMs, cpuMs: (after.cpuNs - before.cpuNs) / 1e6, waitMs: (after.waitNs - before.waitNs) / 1e6 };
    };
    const measure = async (sampled: ReadonlyMap<string, string>): Promise<ColdSample> => {
      const runs: { wallMs: number; cpuMs?: number; waitMs?: number }[][] = [[], []];
      for (const [domain, authorization] of sampled) {
        runs[0]!.push(await token(domain, authorization));
        runs[1]!.push(await token(domain, authorization));
      }
      const [firsts, seconds] = runs as [typeof runs[0], typeof runs[0]];
      const measuredCpu = firsts.length > 0 && [...firsts, ...seconds].every((r) => r.cpuMs !== undefined);
      const of = (rows: typeof firsts, key: 'wallMs' | 'cpuMs' | 'waitMs') => percentiles(rows.map((r) => r[key] ?? 0));
      return {
        sampled: sampled.size,
        first: of(firsts, 'wallMs'),
        second: of(seconds, 'wallMs'),
        ...(measuredCpu ? { cpu: { first: of(firsts, 'cpuMs'), second: of(seconds, 'cpuMs'), firstWait: of(firsts, 'waitMs'), secondWait: of(seconds, 'waitMs') } } : {}),
      };
    };
    const nodeFirst = warmUp === undefined ? undefined : await token(warmUp.domain, warmUp.authorization);
    const afterRestart = await measure(clients[0]!);
    log(`  first token p50 ${afterRestart.first.p50Ms} ms, p90 ${afterRestart.first.p90Ms} ms, p99 ${afterRestart.first.p99Ms} ms; second token p50 ${afterRestart.second.p50Ms} ms, p99 ${afterRestart.second.p99Ms} ms`);
    if (afterRestart.cpu !== undefined) log(`  server CPU per first token p50 ${afterRestart.cpu.first.p50Ms} ms, p99 ${afterRestart.cpu.first.p99Ms} ms; per second token p50 ${afterRestart.cpu.second.p50Ms} ms, p99 ${afterRestart.cpu.second.p99Ms} ms`);
    let warmProcess: ColdStudy['warmProcess'];
    if (phases === 2 && warmUp !== undefined) {
      for (let i = 0; i < warmTokens; i++) await token(warmUp.domain, warmUp.authorization);
      // The optimizing compiles the warm-up started finish on V8's helper threads meanwhile.
      await sleep(500);
      warmProcess = { tokens: warmTokens, ...(await measure(clients[1]!)) };
      log(`  after ${warmTokens} tokens of another instance: first token p50 ${warmProcess.first.p50Ms} ms, p90 ${warmProcess.first.p90Ms} ms, p99 ${warmProcess.first.p99Ms} ms; second token p99 ${warmProcess.second.p99Ms} ms`);
    }
    return {
      instances: options.instances,
      createS,
      restartS,
      ...afterRestart,
      ...(nodeFirst === undefined ? {} : { nodeFirst: { wallMs: round3(nodeFirst.wallMs), ...(nodeFirst.cpuMs === undefined ? {} : { cpuMs: round3(nodeFirst.cpuMs) }) } }),
      ...(warmProcess === undefined ? {} : { warmProcess }),
      idleAfterRestart,
    };
  } finally {
    await node.server.stop();
  }
}

function tokenSpec(origin: string, host: string, authorization: string, connections: number, durationS: number): LoadSpec {
  return {
    origin,
    method: 'POST',
    path: TOKEN_PATH,
    headers: { host, authorization, 'content-type': FORM },
    body: TOKEN_BODY,
    connections,
    pipelining: 1,
    durationS,
  };
}

/** Runs bench/load-process.ts at `niceness` (through `nice`, so all its threads have it; else set on its main thread). */
function runLoadProcess(spec: LoadSpec, niceness: number): Promise<LoadProcessRun> {
  return new Promise((resolve, reject) => {
    const nice = niceness === 0 ? undefined : findExecutable('nice');
    const args = [LOAD_PROCESS, JSON.stringify(spec)];
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
    const child = nice === undefined ? spawn(process.execPath, args, { stdio }) : spawn(nice, ['-n', String(niceness), process.execPath, ...args], { stdio });
    if (nice === undefined && niceness !== 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, niceness);
      } catch {
        // left at the runner's priority; the result's `nice` says so
      }
    }
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out) as LoadProcessRun);
      } catch {
        reject(new Error(`load process printed ${out}`));
      }
    });
  });
}

/** The table rows of one cold sample: first and second tokens, and the server's CPU and run-queue wait per request where measured. */
function coldRows(sample: ColdSample, suffix: string): string[] {
  const row = (label: string, p: Percentiles): string => `| ${label}${suffix} | ${ms(p.p50Ms)} | ${ms(p.p90Ms)} | ${ms(p.p99Ms)} | ${ms(p.maxMs)} |`;
  return [
    row('first of each instance (cold)', sample.first),
    row('second (warm control)', sample.second),
    ...(sample.cpu === undefined
      ? []
      : [
          row('server main-thread CPU, first', sample.cpu.first),
          row('server main-thread CPU, second', sample.cpu.second),
          row('server waiting for a CPU, first', sample.cpu.firstWait),
          row('server waiting for a CPU, second', sample.cpu.secondWait),
        ]),
  ];
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => round3(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0);
  return { p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: round3(sorted[sorted.length - 1] ?? 0) };
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const pct = (share: number | undefined): string => (share === undefined ? '—' : `${Math.round(share * 100)} %`);
const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`;
const ms = (value: number): string => (value >= 10 ? value.toFixed(1) : value.toFixed(2));
/** An open loop's answered requests per server CPU-second. */
const perCpuS = (run: OpenLoopRun): number => (run.serverCpuShare > 0 ? run.achievedRate / run.serverCpuShare : 0);
const cores = (share: number | undefined): string => (share === undefined ? 'an unmeasured share' : share.toFixed(2));

/** The rows of an open loop at 80 % of a peak (`es256-p99-at-80`, `ceiling-es256-p99-at-80`). */
function renderP99AtLoad(lines: string[], name: string, p99: P99AtLoadStudy | { readonly error: string } | undefined): void {
  if (p99 !== undefined) {
    if ('error' in p99) lines.push('', `- ${name} failed: ${p99.error}`);
    else {
      const { run, runs, peak } = p99;
      const asked = p99.share === undefined ? 'BENCH_P99_RATE' : `${Math.round(p99.share * 100)} % of the peak`;
      // Met only at the target's share, with the load delivered (≤ 1 % bad) and the p99 within the target.
      const verdict =
        p99.share !== P99_AT_LOAD_SHARE ? 'no verdict, the rate was set by BENCH_P99_RATE' : run.bad > run.sent / 100 ? `not met, ${run.bad} of ${run.sent} requests bad` : run.latency.p99Ms <= P99_AT_LOAD_TARGET_MS ? 'met' : 'not met';
      lines.push(
        '',
        `${name} (ES256 client_credentials${name.startsWith('ceiling') ? ', the ceiling server' : ''}; peak ${Math.round(peak.reqPerSec).toLocaleString('en-US')} req/s closed loop — ${peak.source}, server CPU ${Math.round(peak.serverCpuShare * 100)} %${peak.contended ? ', contended' : ''}; then an open loop at ${asked}, evenly paced over ${run.connections} keep-alive connections for ${run.durationS} s, latency from the scheduled send time):`,
        '',
        '| asked req/s | sent req/s | answered req/s | bad | p50 ms | p90 ms | p99 ms | max ms | client lag p99 / max ms | send lag p99 / max ms | waited for a connection | client CPU | server CPU | req / server CPU-s (peak) | server / client waiting for a CPU |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...runs.map((r) => `| ${r.askedRate.toLocaleString('en-US')} | ${Math.round(r.sentRate).toLocaleString('en-US')} | ${Math.round(r.achievedRate).toLocaleString('en-US')} | ${r.bad} | ${ms(r.latency.p50Ms)} | ${ms(r.latency.p90Ms)} | ${ms(r.latency.p99Ms)} | ${ms(r.latency.maxMs)} | ${ms(r.dueLag.p99Ms)} / ${ms(r.dueLag.maxMs)} | ${ms(r.sendLag.p99Ms)} / ${ms(r.sendLag.maxMs)} | ${r.queuedInClient} | ${Math.round(r.clientCpuShare * 100)} % | ${Math.round(r.serverCpuShare * 100)} %${r.contended ? ' †' : ''} | ${Math.round(perCpuS(r)).toLocaleString('en-US')} (${Math.round(peak.reqPerServerCpuS).toLocaleString('en-US')}) | ${pct(r.serverRunQueueShare)} / ${pct(r.clientRunQueueShare)} |`),
        '',
        `p99 at ${asked}: ${ms(run.latency.p99Ms)} ms${runs.length > 1 ? `, the median of ${runs.length} runs (${runs.map((r) => ms(r.latency.p99Ms)).join(', ')})` : ''} (target ≤ ${P99_AT_LOAD_TARGET_MS} ms at 80 % of the peak: ${verdict}${run.contended ? '; contended run, indicative' : ''}).`,
      );
    }
  }
}

/** Markdown sections for the studies that ran. */
export function renderStudies(studies: Studies): string[] {
  const lines: string[] = [];
  if (studies.idleMemory !== undefined) {
    const { afterStart, afterSeed } = studies.idleMemory;
    lines.push('', `Tessera's memory (/proc/<pid>/status): idle after start RSS ${mib(afterStart.rssKiB)}, RssAnon ${mib(afterStart.rssAnonKiB)}; after start+seed RSS ${mib(afterSeed.rssKiB)}, RssAnon ${mib(afterSeed.rssAnonKiB)} (target: idle ≤ 80 MB).`);
  }
  renderP99AtLoad(lines, 'es256-p99-at-80', studies.p99AtLoad);
  renderP99AtLoad(lines, 'ceiling-es256-p99-at-80', studies.ceilingP99AtLoad);
  const rss = studies.rss;
  if (rss !== undefined) {
    if ('error' in rss) lines.push('', `- rss-opaque failed: ${rss.error}`);
    else {
      const back = rss.afterSettle.rssAnonKiB / rss.before.rssAnonKiB - 1;
      lines.push(
        '',
        `rss-opaque (RssAnon of the Tessera node; ${rss.tokens.toLocaleString('en-US')} opaque tokens in ${rss.runS} s, then a ${rss.settleS} s pause):`,
        '',
        `| right after start+seed | idle (${rss.settleS} s pause, before the run) | after the run | after the pause | after the pause vs idle | target |`,
        '|---:|---:|---:|---:|---:|---|',
        `| ${mib(rss.idle.rssAnonKiB)} | ${mib(rss.before.rssAnonKiB)} | ${mib(rss.afterRun.rssAnonKiB)} | ${mib(rss.afterSettle.rssAnonKiB)} | ${back >= 0 ? '+' : ''}${Math.round(back * 100)} % | ≤ +${RSS_RETURN_TARGET * 100} % ${back <= RSS_RETURN_TARGET ? 'met' : 'not met'} |`,
      );
    }
  }
  const fairness = studies.fairness;
  if (fairness !== undefined) {
    if ('error' in fairness) lines.push('', `- tenant-fairness failed: ${fairness.error}`);
    else {
      const ratio = fairness.alone.p99Ms > 0 ? fairness.withA.p99Ms / fairness.alone.p99Ms : Number.POSITIVE_INFINITY;
      const p50Ratio = fairness.alone.p50Ms > 0 ? fairness.withA.p50Ms / fairness.alone.p50Ms : Number.POSITIVE_INFINITY;
      lines.push(
        '',
        `tenant-fairness (instance B at ${fairness.rate} req/s over ${fairness.connections} connections for ${fairness.durationS} s, ES256 client_credentials; A = the first instance at full speed from its own load process at nice ${fairness.a.nice}, ${Math.round(fairness.a.reqPerSec).toLocaleString('en-US')} req/s, ${cores(fairness.a.cpuShare)} of the client core):`,
        '',
        '| B | p50 ms | p90 ms | p99 ms | max ms | responses | bad | node CPU (cores) | runner CPU (cores) |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
        `| alone | ${ms(fairness.alone.p50Ms)} | ${ms(fairness.alone.p90Ms)} | ${ms(fairness.alone.p99Ms)} | ${ms(fairness.alone.maxMs)} | ${fairness.alone.responses} | ${fairness.alone.bad} | ${cores(fairness.serverCpu.alone)} | ${cores(fairness.alone.cpuShare)} |`,
        `| with A at full speed | ${ms(fairness.withA.p50Ms)} | ${ms(fairness.withA.p90Ms)} | ${ms(fairness.withA.p99Ms)} | ${ms(fairness.withA.maxMs)} | ${fairness.withA.responses} | ${fairness.withA.bad} | ${cores(fairness.serverCpu.withA)} | ${cores(fairness.withA.cpuShare)} |`,
        `| with A ÷ alone | ${p50Ratio.toFixed(1)}× | | ${ratio.toFixed(1)}× | | | | | |`,
        '',
        `B's p99 with A ÷ alone: ${ratio.toFixed(1)}× (target ≤ ${FAIRNESS_TARGET}×: ${ratio <= FAIRNESS_TARGET ? 'met' : 'not met'}).`,
      );
    }
  }
  const cold = studies.cold;
  if (cold !== undefined) {
    if ('error' in cold) lines.push('', `- cold-instance failed: ${cold.error}`);
    else {
      const warm = cold.warmProcess;
      const verdict = (p99: number): string => `${ms(p99)} ms (target ≤ ${COLD_P99_TARGET_MS} ms: ${p99 <= COLD_P99_TARGET_MS ? 'met' : 'not met'})`;
      lines.push(
        '',
        `cold-instance (${cold.instances} instances created in ${cold.createS.toFixed(1)} s on a node of its own, restarted in ${cold.restartS.toFixed(1)} s — RSS then ${mib(cold.idleAfterRestart.rssKiB)}, RssAnon ${mib(cold.idleAfterRestart.rssAnonKiB)}; one token request at a time to ${cold.sampled} instances untouched since the restart${warm === undefined ? '' : `, then to ${warm.sampled} others after ${warm.tokens} tokens of another instance`}):`,
        '',
        '| token | p50 ms | p90 ms | p99 ms | max ms |',
        '|---|---:|---:|---:|---:|',
        ...coldRows(cold, warm === undefined ? '' : ', right after the restart'),
        ...(warm === undefined ? [] : coldRows(warm, `, after ${warm.tokens} tokens of another instance`)),
        '',
        ...(cold.nodeFirst === undefined
          ? []
          : [`The node's very first token (another cold instance, not in the sample, taken before it): ${ms(cold.nodeFirst.wallMs)} ms${cold.nodeFirst.cpuMs === undefined ? '' : `, ${ms(cold.nodeFirst.cpuMs)} ms of server CPU`}.`, '']),
        warm === undefined
          ? `First-token p99 ${verdict(cold.first.p99Ms)}.`
          : `First-token p99 right after the restart ${verdict(cold.first.p99Ms)}; with the token path compiled ${verdict(warm.first.p99Ms)}.`,
      );
    }
  }
  if (studies.login !== undefined) lines.push(...renderLoginStudy(studies.login));
  return lines;
}
