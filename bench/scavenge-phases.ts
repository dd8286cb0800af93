/**
 * Where a scavenge's pause goes under ES256 client_credentials load (issue 13). `npm run build &&
 * taskset -c 0 node dist/bench/scavenge-phases.js` starts one Tessera node (one thread, ES256,
 * pinned to `PHASES_CPU`, default 1) with V8's `--trace-gc-nvp`, seeds the bench's service users, sends `PHASES_WARMUP` (5,000)
 * token requests, then `PHASES_REQUESTS` (60,000) over `PHASES_CONNECTIONS` (10) keep-alive
 * connections, and prints, for the scavenges during those: the pause (median, p90, max) and every
 * phase V8 names (median, p90, mean, in ms; sizes in bytes). `PHASES_MAIN` runs another build's
 * node (e.g. a copy of main's dist/src/cli/main.js); `PHASES_JSON=<file>` writes the figures.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cleanup } from './processes.js';
import { seedOidc } from './oidc.js';
import { closeHttpClient, startTessera, type TesseraNode } from './tessera.js';
import { sendFixed } from './fixed-load.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = process.env.PHASES_MAIN ?? join(HERE, '..', 'src', 'cli', 'main.js');
const WARMUP = Number(process.env.PHASES_WARMUP ?? 5000);
const REQUESTS = Number(process.env.PHASES_REQUESTS ?? 60_000);
const CONNECTIONS = Number(process.env.PHASES_CONNECTIONS ?? 10);
const CPU = process.env.PHASES_CPU === '' ? undefined : Number(process.env.PHASES_CPU ?? 1);

const quantile = (sorted: readonly number[], q: number): number => (sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number)); // within bounds
const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** One `--trace-gc-nvp` line as numbers by name (`gc=s` kept as a string). */
function parseNvp(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const pair of line.split(/\s+/)) {
    const at = pair.indexOf('=');
    if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return fields;
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  process.env.BENCH_NODE_ARGS = `--trace-gc-nvp ${process.env.BENCH_NODE_ARGS ?? ''}`;
  let measuring = false;
  const scavenges: Map<string, string>[] = [];
  let otherGcs = 0;
  const onLine = (line: string): void => {
    if (!measuring) return;
    if (line.includes('gc=')) {
      const fields = parseNvp(line.slice(line.indexOf('pause=')));
      if (fields.get('gc') === 's') scavenges.push(fields);
      else otherGcs += 1;
    }
  };
  try {
    const node = await startTessera({ main: MAIN, cpu: CPU, cleanup, onLine, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_WORKERS: '1' } });
    const seed = await seedOidc(node, `phases${Date.now()}`);
    await sendFixed(node, { authorization: seed.jwtClientAuthorization, body: seed.tokenBody, amount: WARMUP, connections: CONNECTIONS });
    measuring = true;
    const run = await sendFixed(node, { authorization: seed.jwtClientAuthorization, body: seed.tokenBody, amount: REQUESTS, connections: CONNECTIONS });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the last trace lines
    measuring = false;
    const answered = run.requests.total ?? 0;
    if (run.non2xx + run.errors > 0) throw new Error(`${run.non2xx + run.errors} of ${answered} requests failed`);
    const phases = new Map<string, number[]>();
    for (const fields of scavenges) {
      for (const [name, value] of fields) {
        const number = Number(value);
        if (name === 'gc' || !Number.isFinite(number)) continue;
        let values = phases.get(name);
        if (values === undefined) phases.set(name, (values = []));
        values.push(number);
      }
    }
    const figures = [...phases]
      .map(([name, values]) => {
        const sorted = [...values].sort((a, b) => a - b);
        return { name, median: round(quantile(sorted, 0.5)), p90: round(quantile(sorted, 0.9)), mean: round(values.reduce((s, v) => s + v, 0) / values.length), max: round(sorted[sorted.length - 1] ?? 0) };
      })
      .sort((a, b) => b.mean - a.mean);
    const report = {
      main: MAIN,
      requests: answered,
      connections: CONNECTIONS,
      scavenges: scavenges.length,
      requestsPerScavenge: Math.round(answered / Math.max(1, scavenges.length)),
      otherGcs,
      phases: figures,
    };
    process.stdout.write(`${answered} requests, ${scavenges.length} scavenges (1 per ${report.requestsPerScavenge} requests), ${otherGcs} other GCs\n`);
    process.stdout.write(`${'field'.padEnd(40)} ${'median'.padStart(10)} ${'p90'.padStart(10)} ${'mean'.padStart(10)} ${'max'.padStart(10)}\n`);
    for (const f of figures) {
      if (f.max === 0) continue;
      process.stdout.write(`${f.name.padEnd(40)} ${String(f.median).padStart(10)} ${String(f.p90).padStart(10)} ${String(f.mean).padStart(10)} ${String(f.max).padStart(10)}\n`);
    }
    if (process.env.PHASES_JSON !== undefined) writeFileSync(process.env.PHASES_JSON, JSON.stringify(report, null, 2));
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

await main();
