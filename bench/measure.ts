/**
 * One measured run: load from autocannon (in this process) or wrk (a child process) against a
 * server, with the server's CPU time (/proc, per thread too) and the load generator's CPU time
 * read around it, so each run yields req/s, latency percentiles, status counts and requests per
 * server CPU-second.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTicks, lmdbLastTxnId, processCpuSeconds, reapedChildrenCpuSeconds, threadCpuSeconds, type CpuTicks, type ThreadCpu } from './processes.js';

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
  /** A fixed body, or a function called for every request (autocannon only: wrk sends one fixed request). */
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
  /** The server's LMDB directory: its commits during a run are counted (lmdbCommits). */
  readonly lmdbDir?: string;
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
  /** Load generator CPU during the run, as a share of one core (autocannon: this process; wrk: the wrk process). */
  readonly clientCpuShare: number | undefined;
  /** The server's threads that used CPU during the run, busiest first (CPU-s each). */
  readonly serverThreads: readonly ThreadCpu[];
  /** Server CPU during the run as a share of one core (near 1 when pinned and server-bound). */
  readonly serverCpuShare: number;
  /** LMDB write transactions committed during the run (CpuTarget.lmdbDir), when readable. */
  readonly lmdbCommits?: number;
  /** Share of the machine's CPU time stolen by the hypervisor, and idle, during the run. */
  readonly machineStealShare: number | undefined;
  readonly machineIdleShare: number | undefined;
  /**
   * CPU (in cores) used by anything but the server and the load generator: on the server's
   * core and on the client's core when pinned, on the whole machine when not.
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
    serverThreads: sample.serverThreads,
    ...(sample.lmdbCommits === undefined ? {} : { lmdbCommits: sample.lmdbCommits }),
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
  /** This process's CPU during the run (the pacer and anything else it does meanwhile), as a share of one core. */
  readonly cpuShare: number;
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
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / overallRate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  const durationS = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
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
    cpuShare: round((cpu.user + cpu.system) / 1e6 / durationS, 4),
  };
}

/** p50/p90/p99/max of a set of durations, ms. */
export interface LatencyPercentiles {
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** An open-loop run: what was asked, what went out and came back, and its latencies. */
export interface OpenLoopRun {
  /** Requests per second asked for. */
  readonly askedRate: number;
  readonly connections: number;
  /** Length of the schedule (s). */
  readonly durationS: number;
  /** From the first scheduled send to the last response (s). */
  readonly elapsedS: number;
  readonly sent: number;
  /** Requests written per second of the schedule (their sockets assigned; ≈ askedRate unless the client fell behind). */
  readonly sentRate: number;
  readonly responses: number;
  /** Responses per second of `elapsedS`. */
  readonly achievedRate: number;
  /** Non-2xx, errors and timeouts. */
  readonly bad: number;
  /** From each request's scheduled send time to its response's last byte: client-side queueing included. */
  readonly latency: LatencyPercentiles;
  /**
   * From the scheduled send time to the moment the sender's timer took the request up: the
   * client's own lag (its loop late, or descheduled), with no wait for the server in it.
   */
  readonly dueLag: LatencyPercentiles;
  /**
   * From the scheduled send time to the moment the request got its connection and was written:
   * `dueLag` plus the wait for a free connection, i.e. for the server to answer an earlier
   * request on it (all connections busy: the server is behind, not the client).
   */
  readonly sendLag: LatencyPercentiles;
  /** Requests that found every connection busy and waited in the client for one. */
  readonly queuedInClient: number;
  readonly maxInFlight: number;
  /** This process's CPU over the run as a share of one core. */
  readonly clientCpuShare: number;
  /**
   * Time the server's main thread, and this process's, waited runnable for a CPU (Linux
   * schedstat), as a share of the run: what other processes on their cores added to the
   * latencies. Undefined where schedstat is not readable.
   */
  readonly serverRunQueueShare: number | undefined;
  readonly clientRunQueueShare: number | undefined;
  readonly serverCpuS: number;
  readonly serverCpuShare: number;
  readonly othersOnServerCpu: number | undefined;
  readonly othersOnClientCpu: number | undefined;
  readonly othersOnMachine: number | undefined;
  readonly contended: boolean;
}

/**
 * An open-loop load: `rate` requests per second on a fixed schedule (request i is due at
 * start + i / rate), whatever the responses do, over `spec.connections` keep-alive connections
 * opened first, one request in flight on each. A timer wakes the sender when the next request is
 * due and it writes every request due by then, so sends are even to the timer's resolution
 * (1 ms: at 8,000 req/s up to ~8 requests leave together). Latency runs from the **scheduled**
 * send time to the response's last byte, so a client that falls behind or waits for a free
 * connection counts against the latency (no coordinated omission); the client's own part is
 * reported apart as `dueLag` (its timer late), and with the wait for a free connection as
 * `sendLag`. `warmupS` seconds at the same rate run first on the same connections and are
 * discarded. A fixed body only; responses must carry Content-Length.
 *
 * The client is a minimal HTTP/1.1 one on node:net (the request's bytes built once, responses
 * read by status line and Content-Length): node:http's client costs ~55–70 µs of CPU per request
 * (measured on this machine), too much to send 10,000 req/s evenly from one process.
 */
export async function measureOpenLoop(spec: LoadSpec, rate: number, target: CpuTarget, warmupS: number): Promise<OpenLoopRun> {
  if (typeof spec.body === 'function') throw new Error('the open-loop runner sends a fixed body');
  const url = new URL(spec.origin);
  const pool = await RawHttpPool.open(url.hostname, Number(url.port), spec.connections, rawRequest(spec));
  try {
    if (warmupS > 0) await pool.openLoop(rate, warmupS);
    const around = startSampling(target);
    const clientBefore = process.cpuUsage();
    const serverWaitBefore = runQueueWaitNs(target.pid);
    const clientWaitBefore = runQueueWaitNs(process.pid);
    const run = await pool.openLoop(rate, spec.durationS);
    const client = process.cpuUsage(clientBefore);
    const sample = around.finish();
    const waitShare = (before: number | undefined, after: number | undefined): number | undefined =>
      before === undefined || after === undefined ? undefined : round((after - before) / 1e9 / run.elapsedS, 4);
    const clientCpuShare = round((client.user + client.system) / 1e6 / run.elapsedS, 4);
    const serverCpuShare = round(sample.serverCpuS / run.elapsedS, 4);
    const { othersOnServerCpu, othersOnClientCpu, othersOnMachine, contended } = sample.shares(serverCpuShare, clientCpuShare);
    return {
      askedRate: rate,
      connections: spec.connections,
      durationS: spec.durationS,
      elapsedS: round(run.elapsedS, 3),
      sent: run.sent,
      sentRate: round(run.sent / run.lastSentS, 1),
      responses: run.latencies.length,
      achievedRate: round(run.latencies.length / run.elapsedS, 1),
      bad: run.bad,
      latency: latencyPercentiles(run.latencies),
      dueLag: latencyPercentiles(run.dueLags),
      sendLag: latencyPercentiles(run.sendLags),
      queuedInClient: run.queued,
      maxInFlight: run.maxInFlight,
      clientCpuShare,
      serverRunQueueShare: waitShare(serverWaitBefore, runQueueWaitNs(target.pid)),
      clientRunQueueShare: waitShare(clientWaitBefore, runQueueWaitNs(process.pid)),
      serverCpuS: sample.serverCpuS,
      serverCpuShare,
      othersOnServerCpu,
      othersOnClientCpu,
      othersOnMachine,
      contended,
    };
  } finally {
    pool.close();
  }
}

/** CPU time and run-queue wait of a process's main thread, in ns (Linux schedstat); undefined where unreadable. */
export function schedstat(pid: number): { cpuNs: number; waitNs: number } | undefined {
  try {
    const [cpuNs, waitNs] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return cpuNs === undefined || waitNs === undefined || !Number.isFinite(cpuNs) || !Number.isFinite(waitNs) ? undefined : { cpuNs, waitNs };
  } catch {
    return undefined;
  }
}

const runQueueWaitNs = (pid: number): number | undefined => schedstat(pid)?.waitNs;

/** The request's bytes: request line, the spec's headers, Content-Length when there is a body, the body. */
function rawRequest(spec: LoadSpec): Buffer {
  const body = typeof spec.body === 'string' ? Buffer.from(spec.body) : undefined;
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(spec.headers)) head += `${name}: ${value}\r\n`;
  if (body !== undefined) head += `content-length: ${body.length}\r\n`;
  head += '\r\n';
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

interface OpenLoopRaw {
  readonly sent: number;
  /** When the last request was written, from the start (s); at least the schedule's length. */
  readonly lastSentS: number;
  readonly elapsedS: number;
  readonly latencies: Float64Array;
  readonly sendLags: Float64Array;
  /** Per request: when the sender's timer took it up, minus its scheduled time (ms). */
  readonly dueLags: Float64Array;
  readonly bad: number;
  readonly queued: number;
  readonly maxInFlight: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

/** One keep-alive connection with at most one request in flight. */
interface RawConnection {
  readonly socket: Socket;
  /** Bytes of the response read so far (undefined: none). */
  buffered: Buffer | undefined;
  /** The scheduled send time of the request in flight (performance.now), or -1 when idle. */
  scheduled: number;
  alive: boolean;
}

/** Keep-alive connections sending one fixed request, open-loop (see measureOpenLoop). */
class RawHttpPool {
  private readonly idle: RawConnection[] = [];
  private readonly all: RawConnection[] = [];
  /** Scheduled times of requests waiting for a free connection, from `waitingHead` on. */
  private waiting: number[] = [];
  private waitingHead = 0;
  /** Called when a request is answered (ok: a whole response; status: its status) or fails. */
  private onSettled: (scheduled: number, ok: boolean, status: number) => void = () => undefined;
  private onWritten: (scheduled: number) => void = () => undefined;

  private constructor(private readonly request: Buffer) {}

  static async open(host: string, port: number, connections: number, request: Buffer): Promise<RawHttpPool> {
    const pool = new RawHttpPool(request);
    await Promise.all(Array.from({ length: connections }, () => pool.connect(host, port)));
    return pool;
  }

  private connect(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host, port });
      socket.setNoDelay(true);
      const connection: RawConnection = { socket, buffered: undefined, scheduled: -1, alive: true };
      socket.once('connect', () => {
        this.all.push(connection);
        this.idle.push(connection);
        resolve();
      });
      socket.on('data', (chunk: Buffer) => this.read(connection, chunk));
      socket.on('error', (error) => {
        if (!connection.alive) return;
        if (connection.scheduled < 0 && !this.all.includes(connection)) reject(error);
        this.drop(connection);
      });
      socket.on('close', () => this.drop(connection));
    });
  }

  /** A connection that closed or failed: its request fails, and it serves no more. */
  private drop(connection: RawConnection): void {
    if (!connection.alive) return;
    connection.alive = false;
    connection.socket.destroy();
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    const scheduled = connection.scheduled;
    connection.scheduled = -1;
    if (scheduled >= 0) {
      this.onSettled(scheduled, false, 0);
      this.next(connection);
    }
    // No connection left: the waiting requests fail too.
    if (this.all.every((c) => !c.alive)) while (this.waitingHead < this.waiting.length) this.onSettled(this.waiting[this.waitingHead++]!, false, 0);
  }

  private read(connection: RawConnection, chunk: Buffer): void {
    const data = connection.buffered === undefined ? chunk : Buffer.concat([connection.buffered, chunk]);
    const end = data.indexOf(HEADER_END);
    if (end < 0) {
      connection.buffered = data;
      return;
    }
    const length = CONTENT_LENGTH.exec(data.toString('latin1', 0, end + 2));
    if (length === null || connection.scheduled < 0) {
      // No Content-Length (or a response nobody asked for): this client cannot read it.
      this.drop(connection);
      return;
    }
    if (data.length < end + 4 + Number(length[1])) {
      connection.buffered = data;
      return;
    }
    connection.buffered = undefined;
    const scheduled = connection.scheduled;
    connection.scheduled = -1;
    this.onSettled(scheduled, true, Number(data.toString('latin1', 9, 12)));
    this.next(connection);
  }

  /** The connection is free: the oldest waiting request goes out on it, or it waits. */
  private next(connection: RawConnection): void {
    if (this.waitingHead < this.waiting.length) {
      const scheduled = this.waiting[this.waitingHead++]!;
      if (connection.alive) this.write(connection, scheduled);
      else {
        const other = this.idle.pop();
        if (other === undefined) this.waitingHead -= 1;
        else this.write(other, scheduled);
      }
    } else if (connection.alive) this.idle.push(connection);
  }

  private write(connection: RawConnection, scheduled: number): void {
    connection.scheduled = scheduled;
    connection.socket.write(this.request);
    this.onWritten(scheduled);
  }

  private send(scheduled: number): boolean {
    const connection = this.idle.pop();
    if (connection !== undefined) {
      this.write(connection, scheduled);
      return false;
    }
    if (this.all.every((c) => !c.alive)) this.onSettled(scheduled, false, 0);
    else this.waiting.push(scheduled);
    return true;
  }

  openLoop(rate: number, durationS: number): Promise<OpenLoopRaw> {
    const total = Math.max(1, Math.round(rate * durationS));
    const intervalMs = 1000 / rate;
    const latencies = new Float64Array(total);
    const sendLags = new Float64Array(total);
    const dueLags = new Float64Array(total);
    let responses = 0;
    let written = 0;
    let lastWritten = 0;
    let settled = 0;
    let bad = 0;
    let queued = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let next = 0;
    this.waiting = [];
    this.waitingHead = 0;
    const start = performance.now();
    return new Promise((resolve) => {
      this.onWritten = (scheduled) => {
        const now = performance.now();
        sendLags[written++] = now - scheduled;
        lastWritten = now - start;
      };
      this.onSettled = (scheduled, ok, status) => {
        if (ok) latencies[responses++] = performance.now() - scheduled;
        if (!ok || status < 200 || status > 299) bad += 1;
        inFlight -= 1;
        settled += 1;
        if (settled < total) return;
        resolve({
          sent: written,
          lastSentS: Math.max(lastWritten / 1000, durationS),
          elapsedS: (performance.now() - start) / 1000,
          latencies: latencies.subarray(0, responses),
          sendLags: sendLags.subarray(0, written),
          dueLags,
          bad,
          queued,
          maxInFlight,
        });
      };
      const tick = (): void => {
        const now = performance.now();
        while (next < total && start + next * intervalMs <= now) {
          inFlight += 1;
          if (inFlight > maxInFlight) maxInFlight = inFlight;
          const scheduled = start + next * intervalMs;
          dueLags[next++] = now - scheduled;
          if (this.send(scheduled)) queued += 1;
        }
        if (next < total) setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now()));
      };
      tick();
    });
  }

  close(): void {
    for (const connection of this.all) {
      connection.alive = false;
      connection.socket.destroy();
    }
  }
}

/** Percentiles of durations (ms), nearest rank, rounded to µs. */
export function latencyPercentiles(values: Float64Array | readonly number[]): LatencyPercentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number): number => round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0, 3);
  return { p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: round(sorted[sorted.length - 1] ?? 0, 3) };
}

export interface WrkSpec {
  /** Absolute path of the wrk binary. */
  readonly wrk: string;
  /** Run wrk under `taskset -c <cpu>`; unpinned when undefined. */
  readonly cpu: number | undefined;
}

/**
 * One wrk run: one fixed request over and over. Headers go on the command line (-H); another
 * method than GET, or a body, needs a Lua script (wrk has no option for either), written for this
 * run into a temporary file (wrkRequestScript) and removed afterwards. wrk's own CPU is the
 * runner's reaped-children CPU (/proc/self/stat cutime + cstime) before and after it.
 */
export async function measureWrk(spec: LoadSpec, target: CpuTarget, wrk: WrkSpec): Promise<RunMeasurement> {
  if (typeof spec.body === 'function') throw new Error('wrk sends one fixed request: a body made per request needs autocannon');
  const scriptDir = spec.method !== 'GET' || spec.body !== undefined ? mkdtempSync(join(tmpdir(), 'tessera-bench-wrk-')) : undefined;
  try {
    const script = scriptDir === undefined ? undefined : join(scriptDir, 'request.lua');
    if (script !== undefined) writeFileSync(script, wrkRequestScript(spec.method, spec.body));
    const args = [
      '-t1',
      `-c${spec.connections}`,
      `-d${spec.durationS}s`,
      '--latency',
      ...(script === undefined ? [] : ['-s', script]),
      // wrk adds its own `Host` unless a header spelled exactly `Host` is given: canonical case.
      ...Object.entries(spec.headers).flatMap(([name, value]) => ['-H', `${canonicalHeaderName(name)}: ${value}`]),
      `${spec.origin}${spec.path}`,
    ];
    const around = startSampling(target);
    const wrkBefore = reapedChildrenCpuSeconds(target.ticksPerSecond);
    const { code, stdout, stderr } =
      wrk.cpu === undefined ? await runToEnd(wrk.wrk, args) : await runToEnd('taskset', ['-c', String(wrk.cpu), wrk.wrk, ...args]);
    const wrkCpuS = reapedChildrenCpuSeconds(target.ticksPerSecond) - wrkBefore;
    const sample = around.finish();
    if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr || stdout}`);
    return wrkMeasurement(parseWrkOutput(stdout), sample, wrkCpuS);
  } finally {
    if (scriptDir !== undefined) rmSync(scriptDir, { recursive: true, force: true });
  }
}

/**
 * The Lua script that makes wrk send `method` with `body` (wrk builds the request once from
 * wrk.method, wrk.headers, wrk.body, adding Content-Length for the body; the headers come from -H).
 */
export function wrkRequestScript(method: string, body: string | undefined): string {
  return [
    '-- written by bench/measure.ts for one run',
    `wrk.method = ${luaString(method)}`,
    ...(body === undefined ? [] : [`wrk.body = ${luaString(body)}`]),
    '',
  ].join('\n');
}

/** A Lua string literal of `text`'s UTF-8 bytes: printable ASCII as is, anything else (and `"`, `\`) as a decimal escape. */
export function luaString(text: string): string {
  let literal = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const plain = byte >= 0x20 && byte <= 0x7e && byte !== 0x22 && byte !== 0x5c;
    // Three digits always, so a digit after the escape is never read as part of it.
    literal += plain ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${literal}"`;
}

function wrkMeasurement(parsed: WrkOutput, sample: ReturnType<Sampling['finish']>, wrkCpuS: number): RunMeasurement {
  const serverCpuShare = round(sample.serverCpuS / parsed.durationS, 4);
  const clientCpuShare = round(wrkCpuS / parsed.durationS, 4);
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
    clientCpuShare,
    serverThreads: sample.serverThreads,
    ...(sample.lmdbCommits === undefined ? {} : { lmdbCommits: sample.lmdbCommits }),
    serverCpuShare,
    ...sample.shares(serverCpuShare, clientCpuShare),
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
    serverThreads: ThreadCpu[];
    lmdbCommits: number | undefined;
    /** Machine shares given the server's and the client's CPU share of one core. */
    shares(serverShare: number, clientShare: number | undefined): MachineShares;
  };
}

function startSampling(target: CpuTarget): Sampling {
  const threadsBefore = new Map(threadCpuSeconds(target.pid, target.ticksPerSecond).map((thread) => [thread.tid, thread]));
  const cpuBefore = processCpuSeconds(target.pid, target.ticksPerSecond);
  const txnBefore = target.lmdbDir === undefined ? undefined : lmdbLastTxnId(target.lmdbDir);
  const ticksBefore = cpuTicks();
  return {
    finish() {
      const serverCpuS = round(processCpuSeconds(target.pid, target.ticksPerSecond) - cpuBefore, 2);
      const serverThreads = threadCpuSeconds(target.pid, target.ticksPerSecond)
        .map((thread) => {
          const before = threadsBefore.get(thread.tid);
          return { ...thread, cpuS: round(thread.cpuS - (before?.cpuS ?? 0), 2), userS: round(thread.userS - (before?.userS ?? 0), 2), sysS: round(thread.sysS - (before?.sysS ?? 0), 2) };
        })
        .filter((thread) => thread.cpuS > 0)
        .sort((a, b) => b.cpuS - a.cpuS);
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
      const txnAfter = target.lmdbDir === undefined ? undefined : lmdbLastTxnId(target.lmdbDir);
      return {
        serverCpuS,
        serverThreads,
        lmdbCommits: txnBefore === undefined || txnAfter === undefined ? undefined : txnAfter - txnBefore,
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
