/**
 * Paired CPU per token request of two builds (issue 13): `npm run build && PAIRED_A=<dist> node
 * dist/bench/paired-cpu.js`. Alternating runs on a shared machine moved 10-20 % between runs of
 * one build, more than the cuts being judged; here each round starts both builds' nodes on the
 * same CPU (`PAIRED_CPU`, 1; one thread each, ES256 keys), seeds both (bench/oidc.ts), warms both
 * up and then loads both at once from this process on another CPU, so both see the same
 * contention. Per node and round: CPU per response of its main thread and of all its threads
 * (/proc/<pid>/task/<tid>/schedstat, ns), and responses per LMDB commit. Prints B ÷ A of the
 * main thread per round (every other round starts B first); run A against itself (`PAIRED_B` =
 * `PAIRED_A`) for the noise.
 *
 * `PAIRED_A` / `PAIRED_B`: a build's dist directory (default: this build's, for both);
 * `PAIRED_B_ENV`: settings for B's node only, space-separated `NAME=value` (one build, two
 * settings: e.g. `TESSERA_ACCESS_LOG=off`);
 * `PAIRED_KIND` `opaque` (default) or `es256`: the client_credentials request; `PAIRED_ROUNDS`
 * (5); `PAIRED_REQUESTS` (30,000 per node and round, after 5,000 warm-up);
 * `PAIRED_CONNECTIONS` (50 per node).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendFixed } from './fixed-load.js';
import { seedOidc } from './oidc.js';
import { allowedCpus, Cleanup, lmdbLastTxnId, pinSelf, processCpuNs, threadCpuNs } from './processes.js';
import { closeHttpClient, startTessera, type TesseraNode } from './tessera.js';

const HERE_DIST = join(dirname(fileURLToPath(import.meta.url)), '..');
const A = process.env.PAIRED_A ?? HERE_DIST;
const B = process.env.PAIRED_B ?? HERE_DIST;
const KIND = process.env.PAIRED_KIND ?? 'opaque';
const ROUNDS = Number(process.env.PAIRED_ROUNDS ?? 5);
const REQUESTS = Number(process.env.PAIRED_REQUESTS ?? 30_000);
const CONNECTIONS = Number(process.env.PAIRED_CONNECTIONS ?? 50);
const SERVER_CPU = Number(process.env.PAIRED_CPU ?? 1);
const B_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  (process.env.PAIRED_B_ENV ?? '')
    .split(/\s+/)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

interface Loaded {
  readonly label: string;
  readonly node: TesseraNode;
  readonly authorization: string;
  readonly body: string;
}

const median = (values: readonly number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;

async function round(index: number, mains: Map<string, number[]>): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const loaded: Loaded[] = [];
    // Every other round starts B first: which node starts (and is loaded) first is no bias of one build.
    const order: readonly (readonly [string, string])[] = index % 2 === 0 ? [['A', A], ['B', B]] : [['B', B], ['A', A]];
    for (const [label, dist] of order) {
      const node = await startTessera({ main: join(dist, 'src', 'cli', 'main.js'), cpu: SERVER_CPU, cleanup, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_WORKERS: '1', ...(label === 'B' ? B_ENV : {}) } });
      const seed = await seedOidc(node, `paired${Date.now()}`);
      loaded.push({ label, node, authorization: KIND === 'es256' ? seed.jwtClientAuthorization : seed.opaqueClientAuthorization, body: seed.tokenBody });
    }
    const send = (entry: Loaded, amount: number) => sendFixed(entry.node, { authorization: entry.authorization, body: entry.body, amount, connections: CONNECTIONS });
    await Promise.all(loaded.map((entry) => send(entry, 5000)));
    const before = loaded.map(({ node }) => ({ main: threadCpuNs(node.server.pid, node.server.pid), all: processCpuNs(node.server.pid), commits: lmdbLastTxnId(join(node.dataDir, 'lmdb')) }));
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const runs = await Promise.all(loaded.map((entry) => send(entry, REQUESTS)));
    loaded.forEach(({ label, node }, i) => {
      const run = runs[i];
      const start = before[i];
      if (run === undefined || start === undefined) return;
      const answered = run.requests.total ?? 0;
      if (run.non2xx + run.errors > 0 || answered === 0) throw new Error(`${label}: ${run.non2xx + run.errors} of ${answered} requests failed`);
      const pid = node.server.pid;
      const mainUs = (threadCpuNs(pid, pid) - start.main) / 1000 / answered;
      const allUs = (processCpuNs(pid) - start.all) / 1000 / answered;
      const commits = (lmdbLastTxnId(join(node.dataDir, 'lmdb')) ?? 0) - (start.commits ?? 0);
      mains.get(label)?.push(mainUs);
      process.stdout.write(`round ${index + 1} ${label}: main thread ${mainUs.toFixed(1)} µs per response, all threads ${allUs.toFixed(1)}, ${commits > 0 ? (answered / commits).toFixed(1) : '—'} responses per commit (load ${load})\n`);
    });
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

async function main(): Promise<void> {
  const cpus = allowedCpus();
  const clientCpu = cpus?.find((cpu) => cpu !== SERVER_CPU);
  if (clientCpu !== undefined) pinSelf(clientCpu);
  process.stdout.write(`A ${A}\nB ${B} ${JSON.stringify(B_ENV)}\n${KIND} client_credentials, ${ROUNDS} rounds of ${REQUESTS} requests per node, ${CONNECTIONS} connections each; nodes on CPU ${SERVER_CPU}, load from CPU ${clientCpu ?? 'any'}\n`);
  const mains = new Map<string, number[]>([
    ['A', []],
    ['B', []],
  ]);
  for (let i = 0; i < ROUNDS; i++) await round(i, mains);
  const a = mains.get('A') ?? [];
  const b = mains.get('B') ?? [];
  const ratios = a.map((value, i) => (b[i] ?? Number.NaN) / value);
  process.stdout.write(`main thread B ÷ A per round: ${ratios.map((r) => r.toFixed(3)).join(' ')} (median ${median(ratios).toFixed(3)}); median µs A ${median(a).toFixed(1)}, B ${median(b).toFixed(1)}\n`);
}

await main();
