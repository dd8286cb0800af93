/**
 * What a node's background passes over every instance cost the requests served meanwhile
 * (issue 13). `npm run build && node dist/bench/background-passes.js` creates `PASSES_INSTANCES`
 * (2,000) instances through the system API on a one-thread node pinned to `PASSES_CPU` (1),
 * restarts it on the same data with bench/stall-probe.ts preloaded, and sends evenly paced
 * discovery requests (`PASSES_RATE`, 500 a second, on one keep-alive connection: measurePaced) for
 * `PASSES_SECONDS` (25) from right after the restart: the start-up passes (web-key maintenance,
 * the outbox's first scan and round) and the periodic rescans of the execution plans (every 10 s)
 * fall in that window. It prints the requests' latency percentiles and, from the probe, every gap
 * of the node's main-thread loop longer than 2 ms: what the node itself was held up by.
 * `PASSES_MAIN` runs another build's node (e.g. a copy of main's dist/src/cli/main.js).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurePaced } from './measure.js';
import { Cleanup } from './processes.js';
import { closeHttpClient, startTessera, TESSERA_HOST_HEADER } from './tessera.js';
import { createInstance, createSystemUser, inParallel } from './tenants.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = process.env.PASSES_MAIN ?? join(HERE, '..', 'src', 'cli', 'main.js');
const INSTANCES = Number(process.env.PASSES_INSTANCES ?? 2000);
const RATE = Number(process.env.PASSES_RATE ?? 500);
const SECONDS = Number(process.env.PASSES_SECONDS ?? 25);
const CPU = process.env.PASSES_CPU === '' ? undefined : Number(process.env.PASSES_CPU ?? 1);

const fixed = (value: number): string => value.toFixed(2);

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
    const run = await measurePaced({ origin: node.origin, method: 'GET', path: '/.well-known/openid-configuration', headers: { host: TESSERA_HOST_HEADER }, connections: 1, pipelining: 1, durationS: SECONDS }, RATE);
    process.kill(node.server.pid, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stalls = JSON.parse(readFileSync(join(node.dataDir, `stalls-${node.server.pid}.json`), 'utf8')) as [number, number][];
    await node.server.stop();
    if (run.bad > 0) throw new Error(`${run.bad} of ${run.responses} discovery requests failed`);
    process.stdout.write(`${MAIN}: ${INSTANCES} instances, ${run.responses} discovery requests at ${RATE}/s over ${SECONDS} s from the restart\n`);
    process.stdout.write(`p50 ${fixed(run.p50Ms)} ms, p90 ${fixed(run.p90Ms)} ms, p99 ${fixed(run.p99Ms)} ms, max ${fixed(run.maxMs)} ms\n`);
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
