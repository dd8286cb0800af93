/**
 * The fair scheduler's mechanism, counted rather than timed: how many of instance A's requests
 * start between the moment a request of instance B is sent and the moment B's handler starts.
 * That count depends on the scheduling order, not on how fast the machine is, so it stays
 * meaningful on a loaded machine where B's latency in milliseconds does not.
 *
 * `node dist/bench/fair-mechanism.js` starts a server process (the uWS adapter with the fair
 * scheduler, TESSERA_FAIR_* defaults; `FAIR=0` without it) whose handler signs an ES256 JWT-sized
 * payload (about a token's CPU), then runs instance B (Host b.test) at `RATE` req/s, evenly
 * paced over 10 connections (measure.ts `measurePaced`), from its own process for `DURATION` s
 * alone, and again while instance A (Host a.test) is loaded at full speed by autocannon
 * (`CONNECTIONS`, 100) in another process. B stamps
 * each request with CLOCK_MONOTONIC (process.hrtime, shared by the processes of one machine); the
 * server keeps the start time of A's recent requests and counts those started after B's stamp.
 * Printed: B's latency from that stamp (indicative), the A requests started between B's send and
 * its start (`ahead`), and between the server reading B's request and its start (`aheadOfRead`:
 * the server's own queueing; the rest of `ahead` is the poll batch B's request waited for, and
 * whatever delayed the client between stamping and writing on a loaded machine), p50/p90/p99/max.
 * Pinned with taskset when there are two CPUs: the server on the first, both clients on the
 * second. Bench-only: the counting lives in this file's handler, not in the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { FairScheduler } from '../src/http/fair-scheduler.js';
import { loadUwsAdapter } from '../src/http/select-adapter.js';
import { measurePaced } from './measure.js';
import type { HttpHandler } from '../src/http/types.js';

const SELF = fileURLToPath(import.meta.url);
const RING = 1 << 16;

function percentiles(values: number[]): { p50: number; p90: number; p99: number; max: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0, n: sorted.length };
}

async function server(): Promise<void> {
  const loaded = await loadUwsAdapter();
  if (loaded.adapter === undefined) throw new Error(`no uWS here: ${loaded.reasons.join('; ')}`);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const payload = Buffer.from(`${'x'.repeat(80)}.${'y'.repeat(220)}`);
  const aStarts = new Float64Array(RING); // start times (ns, CLOCK_MONOTONIC) of A's recent requests
  const aStartsRead = new Float64Array(RING); // the same on performance.now(), the clock of a request's startedAt
  let aCount = 0;
  let ahead: number[] = [];
  let aheadOfRead: number[] = [];
  /** A's requests started after `since` on `clock`. */
  const startedSince = (clock: Float64Array, since: number): number => {
    let n = 0;
    while (n < RING - 1 && n < aCount && (clock[(aCount - 1 - n) % RING] as number) > since) n += 1;
    return n;
  };
  const handler: HttpHandler = (req) => {
    const host = req.headers['host'];
    if (req.path === '/report') {
      const body = JSON.stringify({ ahead: percentiles(ahead), aheadOfRead: percentiles(aheadOfRead), aCount });
      ahead = [];
      aheadOfRead = [];
      return { status: 200, headers: { 'content-type': 'application/json' }, body };
    }
    const now = Number(process.hrtime.bigint());
    if (host === 'a.test') {
      aStarts[aCount % RING] = now;
      aStartsRead[aCount % RING] = performance.now();
      aCount += 1;
    } else {
      ahead.push(startedSince(aStarts, Number(req.headers['x-sent'] ?? now)));
      aheadOfRead.push(startedSince(aStartsRead, req.startedAt));
    }
    const signature = sign('sha256', payload, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return { status: 200, headers: { 'content-type': 'application/json' }, body: `{"t":"${signature.toString('base64url')}"}` };
  };
  const fair = process.env.FAIR === '0' ? undefined : new FairScheduler({
    maxInFlight: 64, queueCapacity: 512, lagMs: 10, turnBudget: Number(process.env.TESSERA_FAIR_TURN_BUDGET ?? 16), maxWaitMs: 10_000,
    laneOf: (req) => (req.path === '/report' ? undefined : req.headers['host']),
  });
  const listening = await loaded.adapter.listen(handler, { host: '127.0.0.1', port: 0, maxBodyBytes: 1024, bodyTimeoutMs: 10_000, maxHeaderCount: 50, maxHeaderBytes: 8192, ...(fair === undefined ? {} : { fair }) });
  process.stdout.write(`${listening.port}\n`);
}

async function bClient(port: number, rate: number, durationS: number): Promise<void> {
  const run = await measurePaced({ origin: `http://127.0.0.1:${port}`, method: 'GET', path: '/token', headers: { host: 'b.test' }, connections: 10, pipelining: 1, durationS }, rate, 'x-sent');
  process.stdout.write(`${JSON.stringify({ latencyMs: { p50: run.p50Ms, p90: run.p90Ms, p99: run.p99Ms, max: run.maxMs, n: run.responses }, bad: run.bad })}\n`);
}

function taskset(cpu: string | undefined, args: string[]): [string, string[]] {
  return cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', cpu, process.execPath, ...args]];
}

function output(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
  });
}

async function report(port: number): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}/report`);
  return res.json();
}

async function main(): Promise<void> {
  const rate = Number(process.env.RATE ?? 200);
  const durationS = Number(process.env.DURATION ?? 5);
  const connections = Number(process.env.CONNECTIONS ?? 100);
  const twoCpus = (process.env.PIN ?? '1') !== '0';
  const [serverCpu, clientCpu] = twoCpus ? ['0', '1'] : [undefined, undefined];
  const [cmd, args] = taskset(serverCpu, [SELF, 'server']);
  const srv = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const port = await new Promise<number>((resolve) => srv.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  try {
    const b = () => {
      const [c, a] = taskset(clientCpu, [SELF, 'b', String(port), String(rate), String(durationS)]);
      return output(spawn(c, a, { stdio: ['ignore', 'pipe', 'inherit'] })).then((text) => JSON.parse(text) as unknown);
    };
    await b(); // warm-up
    await report(port);
    const alone = await b();
    const aloneCount = await report(port);
    const autocannon = fileURLToPath(new URL('../../node_modules/autocannon/autocannon.js', import.meta.url));
    const [ac, aa] = taskset(clientCpu, [autocannon, '-c', String(connections), '-d', String(durationS + 3), '-H', 'host=a.test', '--json', `http://127.0.0.1:${port}/token`]);
    const aRun = output(spawn(ac, aa, { stdio: ['ignore', 'pipe', 'ignore'] }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await report(port);
    const withA = await b();
    const withACount = await report(port);
    const a = JSON.parse(await aRun) as { requests: { average: number } };
    process.stdout.write(`${JSON.stringify({ fair: process.env.FAIR !== '0', turnBudget: process.env.TESSERA_FAIR_TURN_BUDGET ?? 16, rate, durationS, connections, pinned: twoCpus, alone: { ...(alone as object), ...(aloneCount as object) }, withA: { ...(withA as object), ...(withACount as object) }, aReqPerSec: a.requests.average }, null, 1)}\n`);
  } finally {
    srv.kill();
  }
}

const role = process.argv[2];
const run = role === 'server' ? server() : role === 'b' ? bClient(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])) : main();
run.catch((error: unknown) => {
  process.stderr.write(`fair-mechanism: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
