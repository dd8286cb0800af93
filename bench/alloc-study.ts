/**
 * Bytes of JS heap allocated per token request, and where (issue 13): a count, not a time, so it
 * holds on a loaded machine. `npm run build && node dist/bench/alloc-study.js` starts one Tessera
 * node (one thread, `TESSERA_WORKERS=1`, ES256 keys) with bench/alloc-probe.ts preloaded, seeds
 * the bench's service users (bench/oidc.ts), and for each of the ES256 and the opaque
 * client_credentials request, and a GET of one organization with the admin PAT (`get-org`, issue 15), sends `ALLOC_WARMUP` (2,000) requests, then `ALLOC_REQUESTS`
 * (20,000) inside a probe measurement, over `ALLOC_CONNECTIONS` (10) keep-alive connections.
 * Also measured: the idle node for as long as the last load took (its own timers), reported
 * apart. Prints bytes per request (GC-counted and sampled) and the top allocation sites, by the
 * allocating frame and by the nearest frame of Tessera's own code. `ALLOC_MAIN` runs another
 * build's node (e.g. /work/main/dist/src/cli/main.js; the probe is this build's);
 * `ALLOC_TOP` (15) sites; `ALLOC_KINDS` (es256,opaque; also get-org) which requests; `ALLOC_SURVIVORS=1` samples only
 * what survived a scavenge; `ALLOC_JSON=<file>` writes the figures as JSON too. Also printed: bytes
 * promoted per request, and per scavenge (median) the bytes promoted and the bytes left young.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cleanup } from './processes.js';
import { seedOidc, TOKEN_PATH } from './oidc.js';
import { closeHttpClient, ORGANIZATIONS_PATH, seedOrganizations, startTessera, type TesseraNode } from './tessera.js';
import { sendFixed } from './fixed-load.js';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children?: readonly ProfileNode[];
}
interface ProbeResult {
  readonly allocatedBytes: number;
  readonly scavenges: number;
  readonly otherGcs: number;
  /** Per scavenge: bytes promoted to the old generation, bytes left in the young generation. */
  readonly promoted: readonly number[];
  readonly survived: readonly number[];
  readonly survivorsOnly: boolean;
  readonly ms: number;
  readonly profile: { readonly head: ProfileNode };
}

const HERE = dirname(fileURLToPath(import.meta.url));
const PROBE = join(HERE, 'alloc-probe.js');
const MAIN = process.env.ALLOC_MAIN ?? join(HERE, '..', 'src', 'cli', 'main.js');
const WARMUP = Number(process.env.ALLOC_WARMUP ?? 2000);
const REQUESTS = Number(process.env.ALLOC_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.ALLOC_CONNECTIONS ?? 10);
const TOP = Number(process.env.ALLOC_TOP ?? 15);
const KINDS = new Set((process.env.ALLOC_KINDS ?? 'es256,opaque').split(','));

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor(sorted.length / 2)] as number); // within bounds
};
const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** The probe's own settings reach the node (startTessera passes only TESSERA_* on by itself). */
function probeSettings(): Record<string, string> {
  return Object.fromEntries(['ALLOC_SAMPLING_INTERVAL', 'ALLOC_SURVIVORS'].flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name] as string]]))); // checked just before
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let measurements = 0;
async function measure(node: TesseraNode, during: () => Promise<unknown>): Promise<ProbeResult> {
  process.kill(node.server.pid, 'SIGUSR2');
  await sleep(500); // the probe's start: a full GC and the profiler session
  await during();
  await sleep(50);
  process.kill(node.server.pid, 'SIGUSR2');
  measurements += 1;
  const file = join(node.dataDir, `alloc-${measurements}.json`);
  for (let waited = 0; !existsSync(file); waited += 100) {
    if (waited > 30_000) throw new Error(`no ${file} from the probe`);
    await sleep(100);
  }
  await sleep(200); // written in one call; let it finish
  return JSON.parse(readFileSync(file, 'utf8')) as ProbeResult;
}

function frameName(frame: CallFrame): string {
  const at = frame.url.lastIndexOf('/dist/');
  const file = at >= 0 ? frame.url.slice(at + 6) : frame.url.replace(/^.*node_modules\//, '');
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  return file === '' ? name : `${name} ${file}:${frame.lineNumber + 1}`;
}

const isOwnCode = (frame: CallFrame): boolean => /\/dist\/(src|actors)\//.test(frame.url);

/** Allocated bytes by the allocating frame and by the innermost frame of Tessera's own code. */
function sites(head: ProfileNode): { byFrame: Map<string, number>; byOwnFrame: Map<string, number>; sampled: number } {
  const byFrame = new Map<string, number>();
  const byOwnFrame = new Map<string, number>();
  let sampled = 0;
  const walk = (node: ProfileNode, own: string | undefined): void => {
    const here = isOwnCode(node.callFrame) ? frameName(node.callFrame) : own;
    if (node.selfSize > 0) {
      sampled += node.selfSize;
      const name = frameName(node.callFrame);
      byFrame.set(name, (byFrame.get(name) ?? 0) + node.selfSize);
      const key = here ?? '(no Tessera frame)';
      byOwnFrame.set(key, (byOwnFrame.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children ?? []) walk(child, here);
  };
  walk(head, undefined);
  return { byFrame, byOwnFrame, sampled };
}

function top(map: Map<string, number>, requests: number): { site: string; bytesPerRequest: number }[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([site, bytes]) => ({ site, bytesPerRequest: Math.round(bytes / requests) }));
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  process.env.BENCH_NODE_ARGS = `--expose-gc --import ${PROBE} ${process.env.BENCH_NODE_ARGS ?? ''}`;
  const report: Record<string, unknown> = { main: MAIN, requests: REQUESTS, connections: CONNECTIONS };
  try {
    const node = await startTessera({ main: MAIN, cpu: undefined, cleanup, defaults: { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_WORKERS: '1', ...probeSettings() } });
    const seed = await seedOidc(node, `alloc${Date.now()}`);
    let lastMs = 1000;
    const [organizationId] = KINDS.has('get-org') ? await seedOrganizations(node, 1, 'alloc') : [];
    for (const [name, authorization, body, path] of [
      ['es256', seed.jwtClientAuthorization, seed.tokenBody, TOKEN_PATH],
      ['opaque', seed.opaqueClientAuthorization, seed.tokenBody, TOKEN_PATH],
      ['get-org', `Bearer ${node.adminToken}`, undefined, `${ORGANIZATIONS_PATH}/${organizationId ?? ''}`],
    ] as const) {
      if (!KINDS.has(name)) continue;
      await sendFixed(node, { authorization, body, amount: WARMUP, connections: CONNECTIONS, path });
      let answered = 0;
      let failed = 0;
      const result = await measure(node, async () => {
        const run = await sendFixed(node, { authorization, body, amount: REQUESTS, connections: CONNECTIONS, path });
        answered = run.requests.total ?? 0;
        failed = run.non2xx + run.errors;
      });
      if (failed > 0) throw new Error(`${name}: ${failed} of ${answered} requests failed`);
      lastMs = result.ms;
      const found = sites(result.profile.head);
      const figures = {
        requests: answered,
        bytesPerRequest: Math.round(result.allocatedBytes / answered),
        sampledBytesPerRequest: Math.round(found.sampled / answered),
        scavenges: result.scavenges,
        requestsPerScavenge: Math.round(answered / Math.max(1, result.scavenges)),
        otherGcs: result.otherGcs,
        promotedBytesPerRequest: Math.round(sum(result.promoted) / answered),
        promotedPerScavengeMedian: median(result.promoted),
        survivedPerScavengeMedian: median(result.survived),
        sampled: result.survivorsOnly ? 'survivors of a scavenge' : 'every allocation',
        promotedPerScavenge: result.promoted,
        survivedPerScavenge: result.survived,
        byFrame: top(found.byFrame, answered),
        byOwnFrame: top(found.byOwnFrame, answered),
      };
      report[name] = figures;
      print(name, figures);
    }
    const idle = await measure(node, () => sleep(lastMs));
    report.idle = { ms: Math.round(idle.ms), bytes: idle.allocatedBytes, bytesPerSecond: Math.round((idle.allocatedBytes / idle.ms) * 1000) };
    process.stdout.write(`\nidle node, ${Math.round(idle.ms)} ms: ${idle.allocatedBytes} bytes (${Math.round((idle.allocatedBytes / idle.ms) * 1000)} bytes/s)\n`);
    if (process.env.ALLOC_JSON !== undefined) writeFileSync(process.env.ALLOC_JSON, JSON.stringify(report, null, 2));
  } finally {
    closeHttpClient();
    await cleanup.run();
  }
}

function print(name: string, figures: { requests: number; bytesPerRequest: number; sampledBytesPerRequest: number; scavenges: number; requestsPerScavenge: number; otherGcs: number; promotedBytesPerRequest: number; promotedPerScavengeMedian: number; survivedPerScavengeMedian: number; sampled: string; byFrame: { site: string; bytesPerRequest: number }[]; byOwnFrame: { site: string; bytesPerRequest: number }[] }): void {
  const lines = [
    `\n## ${name}: ${figures.requests} requests, ${figures.bytesPerRequest} bytes/request allocated (GC-counted), ${figures.sampledBytesPerRequest} sampled; ${figures.scavenges} scavenges (1 per ${figures.requestsPerScavenge} requests), ${figures.otherGcs} other GCs`,
    `promoted ${figures.promotedBytesPerRequest} bytes/request; per scavenge (median) ${figures.promotedPerScavengeMedian} bytes promoted, ${figures.survivedPerScavengeMedian} bytes left young; sampled: ${figures.sampled}`,
    '\nby allocating frame (bytes/request):',
    ...figures.byFrame.map((s) => `  ${String(s.bytesPerRequest).padStart(6)}  ${s.site}`),
    '\nby innermost Tessera frame (bytes/request):',
    ...figures.byOwnFrame.map((s) => `  ${String(s.bytesPerRequest).padStart(6)}  ${s.site}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
