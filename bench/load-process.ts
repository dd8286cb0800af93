/**
 * A load generator in its own process: `node dist/bench/load-process.js '<LoadSpec JSON>'` runs
 * autocannon at full speed with the spec and prints one JSON line with what it got. The
 * tenant-fairness scenario uses it to load instance A while the runner paces instance B, so
 * A's load generator does not stall the event loop that times B's responses.
 */
import { getPriority } from 'node:os';
import { measureAutocannon, type LoadSpec } from './measure.js';

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
  // The server's CPU is measured by the runner; this process reads only its own.
  const run = await measureAutocannon(spec, { pid: process.pid, ticksPerSecond: 100, serverCpu: undefined, clientCpu: undefined });
  // The niceness it ran at (the caller may have lowered its priority) and its own CPU, as a share of one core.
  const line = { responses: run.responses, reqPerSec: run.reqPerSec, bad: run.non2xx + run.errors + run.timeouts, p50Ms: run.p50Ms, p99Ms: run.p99Ms, nice: getPriority(), cpuShare: run.clientCpuShare };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`load-process: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
