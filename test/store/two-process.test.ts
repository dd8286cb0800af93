/**
 * Cross-process atomicity of both adapters: two OS processes on one LMDB directory, or on one
 * PostgreSQL schema, race conditional appends on one stream (no lost or duplicated version,
 * contiguous positions) and ttl.take on the same keys (each row taken exactly once). The
 * workers import the compiled adapters from dist/ (`npm test` builds first; built here only
 * when missing/stale). The PostgreSQL half is skipped, with the reason, without a database.
 */
import { fork, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapter } from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const worker = join(root, 'test', 'store', 'two-process-worker.mjs');
const sources = ['lmdb-store', 'keys', 'postgres-store', 'postgres-append', 'postgres-queries', 'postgres-migrations'].map((name) => ({
  src: join(root, 'src', 'store', `${name}.ts`),
  out: join(root, 'dist', 'src', 'store', `${name}.js`),
}));
const ROUNDS = 300;

/** The rows the 'shapes' workers write (two-process-worker.mjs has the same). */
const shapedRow = (writer: string, i: number) => ({ by: writer, [`${writer}_${i % 40}`]: i, nested: { [`k${i % 7}_${writer}`]: `${writer}-${i}` } });
const INSTANCE = 'inst-race';

function ensureBuilt(): void {
  const stale = sources.some(({ src, out }) => !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs);
  if (!stale) return;
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: root, stdio: 'pipe' });
  } catch {
    // Type errors elsewhere in the tree still emit; the check below is what matters.
  }
  if (sources.some(({ out }) => !existsSync(out))) throw new Error('dist/src/store is missing: run `node scripts/build.mjs`');
}

interface Report {
  conflicts?: number;
  won?: number[];
  found?: number;
  differ?: number;
}

/** Starts one worker per name; resolves when all are ready, after sending them "go" together. */
async function race(mode: 'append' | 'take' | 'shapes', spec: string, names: string[]): Promise<Report[]> {
  // shapes: each worker is also told the other's name (it reads the other's rows at the end).
  const children = names.map((name, i) => fork(worker, [mode, spec, String(ROUNDS), name, names[(i + 1) % names.length]!], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const ready = children.map((child) => new Promise<void>((resolve) => child.once('message', () => resolve())));
  const done = children.map(
    (child) =>
      new Promise<Report>((resolve, reject) => {
        child.on('message', (msg: Report & { done?: boolean }) => msg.done && resolve(msg));
        child.on('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      }),
  );
  await Promise.all(ready);
  for (const child of children) child.send('go');
  return Promise.all(done);
}

/** One shared store for the workers (`spec`, JSON) and the test itself (`open`). */
interface SharedStore {
  readonly spec: string;
  open(): Promise<StoreAdapter>;
  cleanup(): Promise<void>;
}

const lmdbStore = (): SharedStore => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-2proc-'));
  return {
    spec: JSON.stringify({ kind: 'lmdb', path: dir }),
    open: async () => openLmdbStore({ path: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
};

const postgresStore = (): SharedStore => {
  const url = TEST_DATABASE_URL ?? '';
  const schema = freshSchemaName();
  return {
    spec: JSON.stringify({ kind: 'postgres', url, schema }),
    open: () => openPostgresStore({ url, schema, maxConnections: 4 }),
    cleanup: () => dropSchema(schema),
  };
};

describeTwoProcesses('two OS processes on one LMDB directory', lmdbStore, UNCONDITIONAL);
describeTwoProcesses('two OS processes on one PostgreSQL schema', postgresStore, await meet(POSTGRES));

function describeTwoProcesses(name: string, shared: () => SharedStore, verdict: Verdict): void {
  describeIfMet(verdict, name, () => {
    const stores: SharedStore[] = [];
    beforeAll(ensureBuilt, 60_000);
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.cleanup();
    });
    const fresh = async () => {
      const store = shared();
      stores.push(store);
      return store;
    };

    it('serialises conditional appends to one stream: every version exactly once', { timeout: 120_000 }, async () => {
      const target = await fresh();
      const reports = await race('append', target.spec, ['p1', 'p2']);
      const store = await target.open();
      try {
        const total = 2 * ROUNDS;
        const stream = await store.readStream(INSTANCE, 'counter', 'c1');
        const log = await store.readEvents(INSTANCE, 0, total + 10);
        expect(await store.streamVersion(INSTANCE, 'counter', 'c1')).toBe(total);
        expect(stream.map((e) => e.version)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
        expect(log.map((e) => e.position)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
        expect(log.map((e) => e.version)).toEqual(stream.map((e) => e.version));
        expect(log.filter((e) => e.creator === 'p1')).toHaveLength(ROUNDS);
        expect(log.filter((e) => e.creator === 'p2')).toHaveLength(ROUNDS);
        expect(await store.projectionState(INSTANCE)).toMatchObject({ position: total });
        expect(await store.getRecord(INSTANCE, 'counters', 'c1')).toMatchObject({ version: total });
        // Not asserted (timing-dependent), but a run without conflicts would prove nothing.
        console.info(`${name}: append race, ${reports.map((r) => r.conflicts).join(' + ')} conflicts retried`);
      } finally {
        await store.close();
      }
    });

    it('reads rows of shapes another process wrote at the same time (LMDB: shared msgpack structures added by both)', { timeout: 120_000 }, async () => {
      const target = await fresh();
      const reports = await race('shapes', target.spec, ['w1', 'w2']);
      const store = await target.open();
      try {
        for (const writer of ['w1', 'w2']) {
          for (let i = 0; i < ROUNDS; i += 1) expect(await store.getRecord(INSTANCE, 'shapes', `${writer}-${i}`)).toEqual(shapedRow(writer, i));
          const events = await store.readStream(INSTANCE, 'shape', `${writer}-${ROUNDS - 1}`);
          expect(events.map((e) => e.payload)).toEqual([shapedRow(writer, ROUNDS - 1)]);
        }
        // What each worker read of the other's rows while both were running: nothing read wrong.
        expect(reports.map((r) => r.differ)).toEqual([0, 0]);
        console.info(`${name}: shapes, ${reports.map((r) => r.found).join(' / ')} of the other's rows read by each worker`);
      } finally {
        await store.close();
      }
    });

    it('gives each ttl row to exactly one of two racing take() calls', { timeout: 120_000 }, async () => {
      const target = await fresh();
      const store = await target.open();
      try {
        const expiresAt = Date.now() + 3_600_000;
        await Promise.all(Array.from({ length: ROUNDS }, (_, i) => store.ttl.put(INSTANCE, 'codes', `k${i}`, { i }, expiresAt)));
        const [first, second] = await race('take', target.spec, ['t1', 't2']);
        const a = first?.won ?? [];
        const b = second?.won ?? [];
        expect(a.filter((i) => b.includes(i))).toEqual([]);
        expect([...a, ...b].sort((x, y) => x - y)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i));
        expect(await store.ttl.get(INSTANCE, 'codes', 'k0')).toBeUndefined();
        console.info(`${name}: take race, ${a.length} / ${b.length} rows won`);
      } finally {
        await store.close();
      }
    });
  });
}
