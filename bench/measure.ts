/**
 * One measured run: load from autocannon (in this process) or wrk (a child process) against a
 * server, with the server's CPU time (/proc) and this process's CPU time read around it, so each
 * run yields req/s, latency percentiles, status counts and requests per server CPU-second.
 */
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { cpuTicks, processCpuSeconds, type CpuTicks } from './processes.js';

/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}

interface AutocannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly pipelining: number;
  readonly duration: number;
  readonly timeout: number;
  readonly headers: Record<string, string>;
  readonly requests: AutocannonRequest[];
}

interface AutocannonPercentiles {
  readonly average: number;
  readonly max: number;
  readonly p50: number;
  readonly p99: number;
  readonly totalCount?: number;
  readonly total?: number;
}

interface AutocannonResult {
  readonly duration: number;
  readonly latency: AutocannonPercentiles;
  readonly requests: AutocannonPercentiles;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
}

type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** What to load: the target, the requests and the load shape. */
export interface LoadSpec {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A fixed body, or a function called for every request (autocannon only). */
  readonly body?: string | (() => string);
  readonly connections: number;
  readonly pipelining: number;
  readonly durationS: number;
}

/** The server whose CPU time is attributed to the run, and where things are pinned. */
export interface CpuTarget {
  readonly pid: number;
  readonly ticksPerSecond: number;
  /** The CPU the server is pinned to; undefined when unpinned. */
  readonly serverCpu: number | undefined;
  /** The CPU the load generator is pinned to; undefined when unpinned. */
  readonly clientCpu: number | undefined;
}

export interface RunMeasurement {
  readonly tool: 'autocannon' | 'wrk';
  readonly durationS: number;
  /** Responses received (any status). */
  readonly responses: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number | undefined;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /** Server utime + stime during the run. */
  readonly serverCpuS: number;
  /** Responses per server CPU-second: stable when the load generator or the machine is the limit. */
  readonly reqPerServerCpuS: number;
  /** Load generator CPU during the run, as a share of one core (autocannon: this process). */
  readonly clientCpuShare: number | undefined;
  /** Server CPU during the run as a share of one core (near 1 when pinned and server-bound). */
  readonly serverCpuShare: number;
  /** Share of the machine's CPU time stolen by the hypervisor, and idle, during the run. */
  readonly machineStealShare: number | undefined;
  readonly machineIdleShare: number | undefined;
  /**
   * CPU (in cores) used by anything but the server and the load generator: on the server's
   * core and on the client's core when pinned, on the whole machine when not. wrk's own CPU is
   * not measured, so wrk runs have no client figure.
   */
  readonly othersOnServerCpu: number | undefined;
  readonly othersOnClientCpu: number | undefined;
  readonly othersOnMachine: number | undefined;
  /**
   * Other processes took a noticeable share where it mattered: more than a quarter of the
   * server's core, or of the client's core (or the machine, unpinned) while the server was not
   * saturated. This run's req/s is noise; its req per server CPU-second is much less affected.
   */
  readonly contended: boolean;
}

/** Above this many cores used by other processes, a run is marked contended. */
const CONTENDED_OTHER_CORES = 0.25;
/** A server at this share of a core is saturated: competition elsewhere cannot slow it. */
const SATURATED = 0.9;

/** One autocannon run (callers run a warm-up first by calling this with a short duration). */
export async function measureAutocannon(spec: LoadSpec, target: CpuTarget): Promise<RunMeasurement> {
  const request: AutocannonRequest = { method: spec.method, path: spec.path };
  const body = spec.body;
  if (typeof body === 'string') request.body = body;
  else if (typeof body === 'function') request.setupRequest = (req) => ({ ...req, body: body() });
  const options: AutocannonOptions = {
    url: spec.origin,
    connections: spec.connections,
    pipelining: spec.pipelining,
    duration: spec.durationS,
    timeout: 10,
    headers: { ...spec.headers },
    requests: [request],
  };
  const around = startSampling(target);
  const clientBefore = process.cpuUsage();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    autocannon(options, (error, value) => (error === null ? resolve(value) : reject(error)));
  });
  const client = process.cpuUsage(clientBefore);
  const sample = around.finish();
  const durationS = result.duration > 0 ? result.duration : spec.durationS;
  const clientCpuShare = round((client.user + client.system) / 1e6 / durationS, 4);
  const serverCpuShare = round(sample.serverCpuS / durationS, 4);
  const responses = result.requests.total ?? 0;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  return {
    tool: 'autocannon',
    durationS,
    responses,
    reqPerSec: round(responses / durationS, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    serverCpuS: sample.serverCpuS,
    reqPerServerCpuS: sample.serverCpuS > 0 ? round(responses / sample.serverCpuS, 1) : 0,
    clientCpuShare,
    serverCpuShare,
    ...sample.shares(serverCpuShare, clientCpuShare),
  };
}

/** Latencies of every response of a paced run, exact (autocannon's own histogram has 1 ms steps). */
export interface PacedRun {
  readonly rate: number;
  readonly durationS: number;
  readonly responses: number;
  readonly bad: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * A fixed request rate, evenly paced: one request every 1000 / `overallRate` ms, on keep-alive
 * connections (at most `spec.connections` at once; node:http). Not autocannon's overallRate:
 * that is a quota per connection and second, so each connection sends its share back to back at
 * the start of every second — bursts of `connections` concurrent requests, not a steady rate.
 * A response's time runs from the moment its request got a connection and was written to its
 * last byte (the client's own wait for a free connection is not counted; it shows as fewer
 * responses). `stampHeader`, when given, carries that moment (process.hrtime, ns) to the server.
 */
export async function measurePaced(spec: LoadSpec, overallRate: number, stampHeader?: string): Promise<PacedRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const url = new URL(spec.origin);
  const body = typeof spec.body === 'function' ? spec.body() : spec.body;
  const latencies: number[] = [];
  let bad = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      let sent = 0n;
      const req = httpRequest({ host: url.hostname, port: url.port, path: spec.path, method: spec.method, agent, headers: spec.headers, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) > 299) bad += 1;
          resolve();
        });
      });
      req.on('error', () => {
        bad += 1;
        resolve();
      });
      req.on('timeout', () => req.destroy());
      req.on('socket', () => {
        sent = process.hrtime.bigint();
        if (stampHeader !== undefined) req.setHeader(stampHeader, String(sent));
        req.end(body);
      });
    });
  const total = Math.round(overallRate * spec.durationS);
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / overallRate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  const durationS = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => round(latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))] ?? 0, 3);
  return {
    rate: overallRate,
    durationS,
    responses: latencies.length,
    bad,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: round(latencies[latencies.length - 1] ?? 0, 3),
  };
}

export interface WrkSpec {
  /** Absolute path of the wrk binary. */
  readonly wrk: string;
  /** Run wrk under `taskset -c <cpu>`; unpinned when undefined. */
  readonly cpu: number | undefined;
}

/** One wrk run (GET only: wrk needs a Lua script for other methods, and we keep it Lua-free). */
export async function measureWrk(spec: LoadSpec, target: CpuTarget, wrk: WrkSpec): Promise<RunMeasurement> {
  if (spec.method !== 'GET' || spec.body !== undefined) throw new Error('the wrk runner only sends GET without a body');
  const args = [
    '-t1',
    `-c${spec.connections}`,
    `-d${spec.durationS}s`,
    '--latency',
    // wrk adds its own `Host` unless a header spelled exactly `Host` is given: canonical case.
    ...Object.entries(spec.headers).flatMap(([name, value]) => ['-H', `${canonicalHeaderName(name)}: ${value}`]),
    `${spec.origin}${spec.path}`,
  ];
  const around = startSampling(target);
  const { code, stdout, stderr } =
    wrk.cpu === undefined ? await runToEnd(wrk.wrk, args) : await runToEnd('taskset', ['-c', String(wrk.cpu), wrk.wrk, ...args]);
  const sample = around.finish();
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr || stdout}`);
  const parsed = parseWrkOutput(stdout);
  const serverCpuShare = round(sample.serverCpuS / parsed.durationS, 4);
  return {
    tool: 'wrk',
    durationS: parsed.durationS,
    responses: parsed.requests,
    reqPerSec: parsed.reqPerSec,
    p50Ms: parsed.p50Ms,
    p99Ms: parsed.p99Ms,
    meanMs: parsed.meanMs,
    non2xx: parsed.non2xx,
    errors: parsed.socketErrors - parsed.timeouts,
    timeouts: parsed.timeouts,
    statusCodes: {},
    serverCpuS: sample.serverCpuS,
    reqPerServerCpuS: sample.serverCpuS > 0 ? round(parsed.requests / sample.serverCpuS, 1) : 0,
    clientCpuShare: undefined,
    serverCpuShare,
    ...sample.shares(serverCpuShare, undefined),
  };
}

export interface WrkOutput {
  readonly requests: number;
  readonly durationS: number;
  readonly reqPerSec: number;
  readonly meanMs: number | undefined;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** wrk counts statuses above 399 here ("Non-2xx or 3xx responses"). */
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly timeouts: number;
}

/** Parses wrk 4's text report (with --latency). */
export function parseWrkOutput(text: string): WrkOutput {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)\b/.exec(text);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const p50 = /^\s*50(?:\.0+)?%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(text);
  const p99 = /^\s*99(?:\.0+)?%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(text);
  const mean = /^\s*Latency\s+([\d.]+)(us|ms|s|m)\s/m.exec(text);
  if (total === null || rate === null || p50 === null || p99 === null) throw new Error(`cannot parse wrk output:\n${text}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketCounts = socket === null ? [0, 0, 0, 0] : socket.slice(1, 5).map(Number);
  return {
    requests: Number(total[1]),
    durationS: toMs(Number(total[2]), total[3]!) / 1000,
    reqPerSec: Number(rate[1]),
    meanMs: mean === null ? undefined : toMs(Number(mean[1]), mean[2]!),
    p50Ms: toMs(Number(p50[1]), p50[2]!),
    p99Ms: toMs(Number(p99[1]), p99[2]!),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: socketCounts.reduce((a, b) => a + b, 0),
    timeouts: socketCounts[3] ?? 0,
  };
}

/** content-type → Content-Type */
function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-');
}

function toMs(value: number, unit: string): number {
  switch (unit) {
    case 'us':
      return value / 1000;
    case 'ms':
      return value;
    case 's':
      return value * 1000;
    case 'm':
      return value * 60_000;
    case 'h':
      return value * 3_600_000;
    default:
      throw new Error(`unknown wrk time unit ${unit}`);
  }
}

/** The run whose req/s is the median (the lower middle for an even count). */
export function medianRun(runs: readonly RunMeasurement[]): RunMeasurement | undefined {
  const sorted = [...runs].sort((a, b) => a.reqPerSec - b.reqPerSec);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

type MachineShares = Pick<
  RunMeasurement,
  'machineStealShare' | 'machineIdleShare' | 'othersOnServerCpu' | 'othersOnClientCpu' | 'othersOnMachine' | 'contended'
>;

interface Sampling {
  finish(): {
    serverCpuS: number;
    /** Machine shares given the server's and the client's CPU share of one core (client unknown for wrk). */
    shares(serverShare: number, clientShare: number | undefined): MachineShares;
  };
}

function startSampling(target: CpuTarget): Sampling {
  const cpuBefore = processCpuSeconds(target.pid, target.ticksPerSecond);
  const ticksBefore = cpuTicks();
  return {
    finish() {
      const serverCpuS = round(processCpuSeconds(target.pid, target.ticksPerSecond) - cpuBefore, 2);
      const ticksAfter = cpuTicks();
      const busy = (key: string): { busy: number; steal: number; idle: number } | undefined => {
        const before = ticksBefore?.get(key);
        const after = ticksAfter?.get(key);
        if (before === undefined || after === undefined || after.total <= before.total) return undefined;
        const total = after.total - before.total;
        const idle = (after.idle - before.idle) / total;
        return { busy: 1 - idle, idle, steal: (after.steal - before.steal) / total };
      };
      const cores = (value: number | undefined): number | undefined => (value === undefined ? undefined : round(Math.max(0, value), 3));
      return {
        serverCpuS,
        shares(serverShare, clientShare) {
          const machine = busy('all');
          let onServer: number | undefined;
          let onClient: number | undefined;
          let onMachine: number | undefined;
          if (target.serverCpu !== undefined) {
            const serverCore = busy(String(target.serverCpu));
            const clientCore = target.clientCpu === undefined ? undefined : busy(String(target.clientCpu));
            onServer = cores(serverCore === undefined ? undefined : serverCore.busy - serverShare);
            onClient = cores(clientCore === undefined || clientShare === undefined ? undefined : clientCore.busy - clientShare);
          } else if (machine !== undefined && ticksAfter !== undefined) {
            onMachine = cores(machine.busy * (ticksAfter.size - 1) - serverShare - (clientShare ?? 0));
          }
          const unsaturated = serverShare < SATURATED;
          const contended =
            (onServer ?? 0) > CONTENDED_OTHER_CORES || (unsaturated && ((onClient ?? 0) > CONTENDED_OTHER_CORES || (onMachine ?? 0) > CONTENDED_OTHER_CORES));
          return {
            machineStealShare: machine === undefined ? undefined : round(machine.steal, 4),
            machineIdleShare: machine === undefined ? undefined : round(machine.idle, 4),
            othersOnServerCpu: onServer,
            othersOnClientCpu: onClient,
            othersOnMachine: onMachine,
            contended,
          };
        },
      };
    },
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function runToEnd(command: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
