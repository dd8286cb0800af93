/**
 * What a node's background passes over every instance cost the requests served meanwhile
 * (issue 13). `npm run build && node dist/bench/background-passes.js` creates `PASSES_INSTANCES`
 * (2,000) instances through the system API on a one-thread node pinned to CPU 1, restarts it on
 * the same data, and sends evenly paced discovery requests (`PASSES_RATE`, 500 a second, one at a
 * time on a keep-alive connection) for `PASSES_SECONDS` (25) from right after the restart: the
 * start-up passes (web-key maintenance, the outbox's first scan and round) and two periodic
 * rescans of the execution plans (every 10 s) fall in that window. It prints the latency
 * percentiles, the maximum and how many responses took longer than 5 and 10 ms, in one-second
 * windows too (the pacer's timers are off by up to a millisecond, so a request sent late is not
 * counted as slow); and, from bench/stall-probe.ts preloaded into the restarted node, every gap
 * of its main thread's loop longer than 2 ms: what the node itself was held up by. `PASSES_MAIN` runs another build's node (e.g. a copy of main's
 * dist/src/cli/main.js) on a data directory of its own.
 */
import { readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cleanup } from './processes.js';
import { closeHttpClient, startTessera, TESSERA_HOST_HEADER } from './tessera.js';
import { createInstance, createSystemUser, inParallel } from './tenants.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = process.env.PASSES_MAIN ?? join(HERE, '..', 'src', 'cli', 'main.js');
const INSTANCES = Number(process.env.PASSES_INSTANCES ?? 2000);
const RATE = Number(process.env.PASSES_RATE ?? 500);
const SECONDS = Number(process.env.PASSES_SECONDS ?? 25);
const CPU = process.env.PASSES_CPU === '' ? undefined : Number(process.env.PASSES_CPU ?? 1);

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
const fixed = (value: number): string => value.toFixed(2);

/** Evenly paced GETs of the default instance, one at a time (a request due while one is out waits for it); each one timed from its send to its last byte. */
async function paced(origin: string, path: string, rate: number, seconds: number): Promise<{ at: number; ms: number }[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(path, origin);
  const results: { at: number; ms: number }[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, method: 'GET', headers: { host: TESSERA_HOST_HEADER } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
          else resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
    results.push({ at: (due - start) / 1000, ms: performance.now() - sent });
  }
  agent.destroy();
  return results;
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const system = createSystemUser();
  const defaults = { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_SYSTEM_USERS: system.env, TESSERA_WORKERS: '1' };
  try {
    const first = await startTessera({ main: MAIN, cpu: CPU, cleanup, defaults });
    const runId = Date.now().toString(36);
    await inParallel(INSTANCES, 8, async (index) => {
      await createInstance(first, system, `passes-${String(index).padStart(5, '0')}-${runId}.bench`);
    });
    await first.server.stop();
    process.env.BENCH_NODE_ARGS = `--import ${join(HERE, 'stall-probe.js')} ${process.env.BENCH_NODE_ARGS ?? ''}`;
    const node = await startTessera({ main: MAIN, cpu: CPU, cleanup, defaults, dataDir: first.dataDir });
    const results = await paced(node.origin, '/.well-known/openid-configuration', RATE, SECONDS);
    process.kill(node.server.pid, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stalls = JSON.parse(readFileSync(join(node.dataDir, `stalls-${node.server.pid}.json`), 'utf8')) as [number, number][];
    await node.server.stop();
    const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
    const over = (limit: number): number => sorted.filter((ms) => ms > limit).length;
    process.stdout.write(`${MAIN}: ${INSTANCES} instances, ${results.length} discovery requests at ${RATE}/s over ${SECONDS} s from the restart\n`);
    process.stdout.write(`p50 ${fixed(quantile(sorted, 0.5))} ms, p99 ${fixed(quantile(sorted, 0.99))} ms, p99.9 ${fixed(quantile(sorted, 0.999))} ms, max ${fixed(sorted.at(-1) ?? 0)} ms; over 5 ms: ${over(5)}, over 10 ms: ${over(10)}\n`);
    const windows = new Map<number, number[]>();
    for (const r of results) {
      const second = Math.floor(r.at);
      windows.set(second, [...(windows.get(second) ?? []), r.ms]);
    }
    process.stdout.write(`max per second from the restart, ms: ${[...windows.values()].map((values) => fixed(Math.max(...values))).join(' ')}\n`);
    const gaps = stalls.map(([, ms]) => ms).sort((a, b) => a - b);
    const longer = (limit: number): number => gaps.filter((ms) => ms > limit).length;
    process.stdout.write(`node's loop (since its start): ${gaps.length} gaps over 2 ms, ${longer(5)} over 5 ms, ${longer(10)} over 10 ms, ${fixed(gaps.reduce((sum, ms) => sum + ms, 0))} ms in all; longest ${gaps.slice(-5).map(fixed).join(', ')} ms\n`);
    process.stdout.write(`gaps over 5 ms at (s from the node's start): ${stalls.filter(([, ms]) => ms > 5).map(([at, ms]) => `${(at / 1000).toFixed(1)}:${fixed(ms)}`).join(' ')}\n`);
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

await main();
