/**
 * Large-organization export (docs/api/export-import.md, "Large organizations"): does exporting
 * N human users hold them in memory at once? For each size in BENCH_EXPORT_USERS (default
 * `10000,100000`) a fresh node gets that many users spread over BENCH_EXPORT_ORGS (default 10)
 * organizations, seeded by concurrent `POST /admin/v1/import` calls, one per organization
 * (users carry a fixed argon2id hash string, so nothing is hashed; concurrent organizations
 * let the store batch commits), then `POST /admin/v1/export` of all of them with passwords is
 * streamed to nowhere — by a restarted node on the same data, so the import's heap does not
 * count. While each phase runs, the node's anonymous resident memory (RssAnon of
 * /proc/<pid>/status: the JS heap and native allocations, without LMDB's file-backed map) is
 * sampled every 20 ms; idle and peak are reported beside the document size. The exporting node
 * runs with a small V8 heap cap (BENCH_EXPORT_HEAP_MIB, default 64): resident memory follows the
 * collector's appetite, the cap is the hard check that the users are never all held at once. Memory that does not grow with the users
 * is the honest check; a run of 100k users takes a few minutes, so it never runs in npm test.
 *
 *   npm run build && node dist/bench/export-large.js
 *   BENCH_EXPORT_USERS=100000 node dist/bench/export-large.js
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cleanup, describeError, spawnServer, type ServerProcess } from './processes.js';

interface TesseraNode {
  readonly server: ServerProcess;
  readonly origin: string;
  readonly adminToken: string;
}

const MAIN = join(import.meta.dirname, '..', 'src', 'cli', 'main.js');
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$YmVuY2hzYWx0YmVuY2g$Zm9vYmFyYmF6Zm9vYmFyYmF6Zm9vYmFyYmF6Zm9vYmE';
const ORGS = Number(process.env.BENCH_EXPORT_ORGS ?? '10');
/**
 * The exporting node's V8 old-space cap: far below what the users would need as objects (100k
 * users are a 43 MB document), so an export that held them all would die of OOM, not pass.
 */
const EXPORT_HEAP_MIB = Number(process.env.BENCH_EXPORT_HEAP_MIB ?? '64');
const orgId = (index: number) => `bench-large-org-${index}`;

interface Phase {
  readonly seconds: number;
  readonly peakAnonMiB: number;
  readonly bytes: number;
}

interface Row {
  readonly users: number;
  readonly idleAnonMiB: number;
  readonly import: Phase;
  /** RssAnon of the restarted node before the export. */
  readonly exportIdleAnonMiB: number;
  readonly export: Phase;
}

function rssAnonKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^RssAnon:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
}

/** Runs `work` while sampling the node's RssAnon; returns the peak in MiB and the elapsed time. */
async function measured(pid: number, work: () => Promise<number>): Promise<Phase> {
  let peak = rssAnonKiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssAnonKiB(pid))), 20);
  const started = performance.now();
  try {
    const bytes = await work();
    return { seconds: (performance.now() - started) / 1000, peakAnonMiB: Math.max(peak, rssAnonKiB(pid)) / 1024, bytes };
  } finally {
    clearInterval(timer);
  }
}

function documentOf(org: number, users: number): string {
  const parts: string[] = [];
  for (let i = org * users; i < (org + 1) * users; i++) {
    const name = `user${String(i).padStart(6, '0')}`;
    parts.push(
      JSON.stringify({
        userId: `bench-user-${i}`,
        user: { userName: name, profile: { firstName: 'Bench', lastName: `User ${i}`, preferredLanguage: 'en' }, email: { email: `${name}@bench.example.com`, isEmailVerified: true }, hashedPassword: { value: HASH } },
      }),
    );
  }
  return `{"orgs":[{"orgId":"${orgId(org)}","org":{"name":"Bench Large ${org}"},"humanUsers":[${parts.join(',')}]}]}`;
}

/** One import per organization, all at once; returns the bytes sent. */
async function seed(node: TesseraNode, users: number): Promise<number> {
  const perOrg = Math.ceil(users / ORGS);
  const sizes = await Promise.all(
    Array.from({ length: ORGS }, async (_, org) => {
      const body = JSON.stringify({ timeout: '1h', data_orgsv1: documentOf(org, perOrg) });
      const result = await post(node, '/admin/v1/import', body, (res) => readAll(res));
      if (result.status !== 200) throw new Error(`import: HTTP ${result.status} ${result.body.slice(0, 500)}`);
      const counts = (JSON.parse(result.body) as { counts: { human_user?: { created: number } } }).counts;
      if (counts.human_user?.created !== perOrg) throw new Error(`import created ${JSON.stringify(counts.human_user)} of ${perOrg} users`);
      return Buffer.byteLength(body);
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/** A POST with the admin token and no client timeout (a large import is silent for minutes). */
function post<T>(node: TesseraNode, path: string, body: string, read: (res: IncomingMessage) => Promise<T>): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, node.origin), {
      method: 'POST',
      headers: { host: 'localhost', authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.once('response', (res) => void read(res).then((value) => resolve({ status: res.statusCode ?? 0, body: value }), reject));
    req.once('error', reject);
    req.end(body);
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Streams the export response and counts its bytes (nothing is kept). */
async function exportAll(node: TesseraNode): Promise<number> {
  const body = JSON.stringify({ org_ids: Array.from({ length: ORGS }, (_, org) => orgId(org)), with_passwords: true, response_output: true, timeout: '1h' });
  const result = await post(node, '/admin/v1/export', body, async (res) => {
    let bytes = 0;
    for await (const chunk of res) bytes += (chunk as Buffer).byteLength;
    return bytes;
  });
  if (result.status !== 200) throw new Error(`export: HTTP ${result.status}`);
  return result.body;
}

/** A node on `dataDir` (kept across restarts, unlike bench/tessera.ts's fresh directory each start). */
async function startNode(dataDir: string, cleanup: Cleanup, nodeArgs: readonly string[] = []): Promise<TesseraNode> {
  const server = await spawnServer({
    name: 'tessera',
    cleanup,
    args: [...nodeArgs, MAIN, 'start'],
    env: {
      PATH: process.env.PATH ?? '',
      TESSERA_DATA_DIR: dataDir,
      TESSERA_PORT: '0',
      TESSERA_GRPC_PORT: '0',
      TESSERA_HOST: '127.0.0.1',
      TESSERA_LOG_LEVEL: 'info',
      TESSERA_IMPORT_MAX_BODY_BYTES: String(512 * 1024 * 1024),
      TESSERA_BODY_TIMEOUT_MS: '600000',
    },
    readyTimeoutMs: 60_000,
  });
  return { server, origin: `http://127.0.0.1:${Number(server.listening.httpPort)}`, adminToken: readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim() };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

async function runSize(users: number): Promise<Row> {
  const cleanup = new Cleanup();
  try {
    const dataDir = mkdtempSync(join(tmpdir(), 'tessera-bench-export-'));
    cleanup.addDirectory(dataDir);
    const seeding = await startNode(dataDir, cleanup);
    await settle();
    const idle = rssAnonKiB(seeding.server.pid) / 1024;
    const imported = await measured(seeding.server.pid, () => seed(seeding, users));
    // A restart on the same data: the export is measured from a fresh heap, not the import's.
    await seeding.server.stop();
    const node = await startNode(dataDir, cleanup, [`--max-old-space-size=${EXPORT_HEAP_MIB}`]);
    await settle();
    const before = rssAnonKiB(node.server.pid) / 1024;
    const exported = await measured(node.server.pid, () => exportAll(node)).catch((error: unknown) => {
      throw new Error(`${describeError(error)}; the node said:\n${node.server.recentOutput()}`);
    });
    return { users, idleAnonMiB: idle, import: imported, exportIdleAnonMiB: before, export: exported };
  } finally {
    await cleanup.run();
  }
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_EXPORT_USERS ?? '10000,100000').split(',').map((s) => Number(s.trim()));
  const rows: Row[] = [];
  for (const users of sizes) {
    process.stderr.write(`export-large: ${users} users…\n`);
    rows.push(await runSize(users));
  }
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  process.stdout.write(`export node: --max-old-space-size=${EXPORT_HEAP_MIB}\n\n`);
  process.stdout.write(
    '| users | import body MiB | import s | import RssAnon MiB (idle → peak) | export document MiB | export s | export RssAnon MiB (idle → peak) |\n|---|---|---|---|---|---|---|\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.users} | ${mib(r.import.bytes)} | ${r.import.seconds.toFixed(1)} | ${r.idleAnonMiB.toFixed(0)} → ${r.import.peakAnonMiB.toFixed(0)} | ${mib(r.export.bytes)} | ${r.export.seconds.toFixed(1)} | ${r.exportIdleAnonMiB.toFixed(0)} → ${r.export.peakAnonMiB.toFixed(0)} |\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`export-large: ${describeError(error)}\n`);
  process.exit(1);
});
