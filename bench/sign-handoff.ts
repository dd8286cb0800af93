/**
 * Study (issue 13): what handing an RS256 signature off the event loop costs, beside signing on
 * it. `npm run build && node dist/bench/sign-handoff.js`: per round, two child processes run at
 * the same time on one CPU (`HANDOFF_CPU`, 1; taskset), so both see the same contention: one
 * signs synchronously (the raw signing rate's loop, bench/signing-worker.ts), the other one of
 * the ways off the loop. Each signs `HANDOFF_SIGNS` (1,500) compact JWS after a warm-up and
 * prints CPU per signature (utime + stime of all its threads), its system part, and voluntary /
 * involuntary context switches per signature (/proc/self/task/<tid>/status). Variants:
 * - `threadpool`: `crypto.sign` with a callback (libuv threadpool, 4 threads), 100 in flight (the signer's way);
 * - `threadpool-size-1`: the same with `UV_THREADPOOL_SIZE=1`;
 * - `capped`: one in flight, i.e. capped at `os.availableParallelism()` of a pinned process;
 * - `worker`: one worker thread signing batches synchronously, 100 in flight (postMessage per batch).
 * The figure to read is sync ÷ variant CPU per signature of the same round (1.00: the handoff is free).
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

type Mode = 'sync' | 'threadpool' | 'threadpool-size-1' | 'capped' | 'worker';
const VARIANTS: readonly Mode[] = ['threadpool', 'threadpool-size-1', 'capped', 'worker'];

interface Result {
  readonly mode: Mode;
  readonly cpuUs: number;
  readonly sysUs: number;
  readonly voluntary: number;
  readonly involuntary: number;
}

const INPUT = `${Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'bench-key-0000000000000000000000000000000000', typ: 'JWT' })).toString('base64url')}.${'x'.repeat(300)}`;

function contextSwitches(): [number, number] {
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      voluntary += Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return [voluntary, involuntary];
}

/** Signs `count` inputs with at most `inFlight` callbacks pending. */
function signOnThreadpool(key: KeyObject, count: number, inFlight: number): Promise<void> {
  const data = Buffer.from(INPUT, 'latin1');
  let started = 0;
  let done = 0;
  return new Promise((resolve, reject) => {
    const next = (): void => {
      started += 1;
      sign('sha256', data, key, (error, signature) => {
        if (error !== null) return reject(error);
        if (`${INPUT}.${signature.toString('base64url')}`.length === 0) return reject(new Error('empty token'));
        done += 1;
        if (done === count) resolve();
        else if (started < count) next();
      });
    };
    for (let i = 0; i < inFlight && started < count; i++) next();
  });
}

const WORKER_SOURCE = `const { parentPort, workerData } = require('node:worker_threads'); const { sign } = require('node:crypto');
parentPort.on('message', (inputs) => parentPort.postMessage(inputs.map((input) => sign('sha256', Buffer.from(input, 'latin1'), workerData).toString('base64url'))));`;

/** Signs `count` inputs through one worker thread: what waits while a batch is signed goes as the next batch. */
async function signInWorker(key: KeyObject, count: number, inFlight: number): Promise<void> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: key });
  let waiting: (() => void)[] = [];
  let signing: (() => void)[] | undefined;
  const flush = (): void => {
    if (signing !== undefined || waiting.length === 0) return;
    signing = waiting;
    waiting = [];
    worker.postMessage(signing.map(() => INPUT));
  };
  worker.on('message', (signatures: string[]) => {
    const batch = signing ?? [];
    signing = undefined;
    flush();
    batch.forEach((wake, i) => `${INPUT}.${signatures[i]}`.length > 0 && wake());
  });
  let started = 0;
  const lane = async (): Promise<void> => {
    while (started < count) {
      started += 1;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        flush();
      });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  await worker.terminate();
}

async function signAll(mode: Mode, key: KeyObject, count: number): Promise<void> {
  if (mode === 'sync') {
    const data = Buffer.from(INPUT, 'latin1');
    for (let i = 0; i < count; i++) if (`${INPUT}.${sign('sha256', data, key).toString('base64url')}`.length === 0) throw new Error('empty token');
    return;
  }
  if (mode === 'worker') return signInWorker(key, count, 100);
  return signOnThreadpool(key, count, mode === 'capped' ? 1 : 100);
}

async function child(mode: Mode, count: number): Promise<void> {
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  await signAll(mode, key, Math.min(300, count)); // warm-up: JIT, OpenSSL, the pool's threads
  const [voluntary0, involuntary0] = contextSwitches();
  const cpu0 = process.cpuUsage();
  await signAll(mode, key, count);
  const cpu = process.cpuUsage(cpu0);
  const [voluntary1, involuntary1] = contextSwitches();
  const result: Result = { mode, cpuUs: (cpu.user + cpu.system) / count, sysUs: cpu.system / count, voluntary: (voluntary1 - voluntary0) / count, involuntary: (involuntary1 - involuntary0) / count };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** Runs sync and `variant` at once on `cpu`; both results. */
function runPair(variant: Mode, cpu: string, count: number): [Result, Result] {
  const self = fileURLToPath(import.meta.url);
  const script = [
    `taskset -c ${cpu} "${process.execPath}" "${self}" child sync ${count} &`,
    `${variant === 'threadpool-size-1' ? 'UV_THREADPOOL_SIZE=1 ' : ''}taskset -c ${cpu} "${process.execPath}" "${self}" child ${variant} ${count}`,
    'wait',
  ].join('\n');
  const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pair ${variant} failed: ${run.stderr}`);
  const results = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Result);
  const sync = results.find((r) => r.mode === 'sync');
  const other = results.find((r) => r.mode === variant);
  if (sync === undefined || other === undefined) throw new Error(`pair ${variant}: missing output ${run.stdout}`);
  return [sync, other];
}

function main(): void {
  const cpu = process.env.HANDOFF_CPU ?? '1';
  const count = Number(process.env.HANDOFF_SIGNS ?? 1500);
  const rounds = Number(process.env.HANDOFF_ROUNDS ?? 5);
  const pairs = new Map<Mode, [Result, Result][]>(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < rounds; round++) for (const variant of VARIANTS) pairs.get(variant)?.push(runPair(variant, cpu, count));
  console.log(`RS256-2048, ${count} signatures per process, ${rounds} rounds, CPU ${cpu}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
  console.log('| variant | sync ÷ variant CPU per signature (median; runs) | µs CPU / sig | of it system | voluntary cs / sig | involuntary cs / sig |');
  console.log('|---|---|---:|---:|---:|---:|');
  const syncs = [...pairs.values()].flat().map(([sync]) => sync);
  console.log(`| sync (on the loop) | 1.00 | ${median(syncs.map((r) => r.cpuUs)).toFixed(0)} | ${median(syncs.map((r) => r.sysUs)).toFixed(1)} | ${median(syncs.map((r) => r.voluntary)).toFixed(2)} | ${median(syncs.map((r) => r.involuntary)).toFixed(2)} |`);
  for (const [variant, results] of pairs) {
    const ratios = results.map(([sync, other]) => sync.cpuUs / other.cpuUs);
    const others = results.map(([, other]) => other);
    console.log(`| ${variant} | ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')}) | ${median(others.map((r) => r.cpuUs)).toFixed(0)} | ${median(others.map((r) => r.sysUs)).toFixed(1)} | ${median(others.map((r) => r.voluntary)).toFixed(2)} | ${median(others.map((r) => r.involuntary)).toFixed(2)} |`);
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as Mode, Number(process.argv[4]));
else main();
