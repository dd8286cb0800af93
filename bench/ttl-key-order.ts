/**
 * Study (issue 13): does the order of TTL row keys change what an LMDB commit costs? An opaque
 * access token is a TTL row under [instance, 't', 'oidc.at', sha256(token) base64url]; the
 * digests are random, so every put of a group-committed batch lands on a different leaf of a
 * large B-tree. Keys that start with the issue time would append at the right edge instead.
 *
 * `npm run build && node dist/bench/ttl-key-order.js`: two LMDB environments in a temp dir
 * (on disk, synced as the store opens them: `useVersions`, no `noSync`), each pre-filled with
 * `KEYORDER_ROWS` (500,000) rows of ~150-byte records: (a) random 43-character keys, (b) a
 * 6-character time prefix (seconds, an ASCII-ordered 64-character alphabet) then the random
 * part, written in time order over the past hour. Then, for each batch size in
 * `KEYORDER_BATCHES` (20,50,200), `KEYORDER_PUTS` (10,000) puts per variant in batches: the
 * batch's puts in one synchronous run plus one expiry-group entry, awaited with `db.flushed`
 * (what src/store/lmdb-ttl-batch.ts does), variants alternating `KEYORDER_ROUNDS` (2) times.
 * Prints per put: process CPU (utime + stime of every thread, /proc/self/stat: the writer thread
 * included), bytes written (/proc/self/io write_bytes) and wall time, and the tree's shape.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { open, type Key, type RootDatabase } from 'lmdb';
import { clockTicksPerSecond, processCpuSeconds } from './processes.js';

const env = process.env;
const ROWS = Number(env.KEYORDER_ROWS ?? 500_000);
const PUTS = Number(env.KEYORDER_PUTS ?? 10_000);
const ROUNDS = Number(env.KEYORDER_ROUNDS ?? 2);
const BATCHES = (env.KEYORDER_BATCHES ?? '20,50,200').split(',').map(Number);
const TICKS = clockTicksPerSecond();
const INSTANCE = '349125113947324418';
const TABLE = 'oidc.at';
/** ASCII order: a prefix's characters sort as their values do (base64url's own order does not). */
const SORTED64 = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

type Variant = 'random' | 'time-ordered';

function timePrefix(seconds: number): string {
  let out = '';
  for (let i = 5; i >= 0; i -= 1) out += SORTED64[Math.floor(seconds / 64 ** i) % 64];
  return out;
}

function randomPart(): string {
  return randomBytes(32).toString('base64url');
}

function rowKey(variant: Variant, seconds: number): Key {
  return [INSTANCE, 't', TABLE, variant === 'random' ? randomPart() : timePrefix(seconds) + randomPart()];
}

/** About what an opaque client_credentials token's record weighs (msgpack ~150 bytes). */
function record(seconds: number): Record<string, unknown> {
  return {
    format: 'opaque',
    jti: `${randomBytes(12).toString('base64url')}.${randomBytes(9).toString('base64url')}`,
    grantId: randomBytes(12).toString('base64url'),
    sub: '349125114131873794',
    clientId: '349125114131873794@bench',
    aud: ['349125113947324418'],
    scope: ['openid'],
    iat: seconds,
    exp: seconds + 3600,
  };
}

function writeBytes(): number {
  const io = readFileSync('/proc/self/io', 'utf8');
  const match = /^write_bytes: (\d+)$/m.exec(io);
  return match === null ? Number.NaN : Number(match[1]);
}

async function prefill(db: RootDatabase<unknown, Key>, variant: Variant): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const per = 10_000;
  for (let done = 0; done < ROWS; done += per) {
    for (let i = done; i < Math.min(ROWS, done + per); i += 1) {
      // Over the past hour, in time order (a token's row is written when it is issued).
      const seconds = now - 3600 + Math.floor((i * 3600) / ROWS);
      void db.put(rowKey(variant, seconds), record(seconds), (seconds + 3600) * 1000);
    }
    await db.flushed;
  }
}

interface Run {
  readonly cpuUs: number;
  readonly bytes: number;
  readonly wallUs: number;
}

let groupSeq = 0;

async function measure(db: RootDatabase<unknown, Key>, variant: Variant, batch: number): Promise<Run> {
  const c0 = processCpuSeconds(process.pid, TICKS);
  const w0 = writeBytes();
  const t0 = performance.now();
  for (let done = 0; done < PUTS; done += batch) {
    const seconds = Math.floor(Date.now() / 1000);
    const members: unknown[] = [];
    for (let i = 0; i < batch; i += 1) {
      const key = rowKey(variant, seconds);
      void db.put(key, record(seconds), (seconds + 3600) * 1000);
      members.push(INSTANCE, TABLE, (key as string[])[3]);
    }
    void db.put(['~x', (seconds + 3600) * 1000, '~g', `g.${(groupSeq += 1)}`], members);
    await db.flushed;
  }
  const wall = performance.now() - t0;
  return {
    cpuUs: ((processCpuSeconds(process.pid, TICKS) - c0) * 1e6) / PUTS,
    bytes: (writeBytes() - w0) / PUTS,
    wallUs: (wall * 1000) / PUTS,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function shape(db: RootDatabase<unknown, Key>): string {
  const s = db.getStats() as Record<string, number>;
  return `depth ${s.treeDepth}, ${s.treeBranchPageCount} branch + ${s.treeLeafPageCount} leaf pages, ${s.entryCount} entries`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ttl-key-order-'));
  const dbs = {
    random: open<unknown, Key>(join(dir, 'random'), { useVersions: true }),
    'time-ordered': open<unknown, Key>(join(dir, 'time-ordered'), { useVersions: true }),
  } satisfies Record<Variant, RootDatabase<unknown, Key>>;
  try {
    console.log(`pre-filling ${ROWS} rows each (load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    for (const variant of ['random', 'time-ordered'] as const) {
      const t0 = performance.now();
      await prefill(dbs[variant], variant);
      console.log(`  ${variant}: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${shape(dbs[variant])}`);
    }
    const runs = new Map<string, Run[]>();
    for (const batch of BATCHES) {
      for (let round = 0; round < ROUNDS; round += 1) {
        const order: Variant[] = round % 2 === 0 ? ['random', 'time-ordered'] : ['time-ordered', 'random'];
        for (const variant of order) {
          const run = await measure(dbs[variant], variant, batch);
          const id = `${batch}/${variant}`;
          runs.set(id, [...(runs.get(id) ?? []), run]);
          console.log(
            `batch ${String(batch).padStart(3)} ${variant.padEnd(12)} CPU ${run.cpuUs.toFixed(1).padStart(6)} µs/put, ` +
              `written ${(run.bytes / 1024).toFixed(2).padStart(6)} KiB/put, wall ${run.wallUs.toFixed(1).padStart(6)} µs/put ` +
              `(load ${loadavg()[0]!.toFixed(2)})`,
          );
        }
      }
    }
    console.log('\nmedians per put (time-ordered ÷ random):');
    for (const batch of BATCHES) {
      const a = runs.get(`${batch}/random`)!;
      const b = runs.get(`${batch}/time-ordered`)!;
      const row = (pick: (r: Run) => number) => {
        const ma = median(a.map(pick));
        const mb = median(b.map(pick));
        return `${ma.toFixed(1)} → ${mb.toFixed(1)} (${(mb / ma).toFixed(2)}x)`;
      };
      console.log(
        `  batch ${String(batch).padStart(3)}: CPU µs ${row((r) => r.cpuUs)}; written KiB ${row((r) => r.bytes / 1024)}; wall µs ${row((r) => r.wallUs)}`,
      );
    }
    for (const variant of ['random', 'time-ordered'] as const) console.log(`${variant} after: ${shape(dbs[variant])}`);
  } finally {
    await Promise.all(Object.values(dbs).map((db) => db.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
