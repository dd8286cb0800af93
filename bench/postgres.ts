/**
 * The PostgreSQL side of the benchmark: which database (BENCH_DATABASE_URL, else
 * TESSERA_TEST_DATABASE_URL; the PostgreSQL scenarios are skipped with the reason when neither
 * is set or the server does not answer), a fresh schema per run (dropped afterwards), and the
 * CPU time of the PostgreSQL backends serving the Tessera node under test. Those backends are
 * found by their application_name (the node's postgres.js pool reads PGAPPNAME), so other
 * clients of a shared server are not counted; PostgreSQL's background processes (WAL writer,
 * checkpointer, autovacuum) are not counted either.
 */
import postgres from 'postgres';
import { describeError, processCpuSeconds, type Cleanup } from './processes.js';

export interface BenchDatabase {
  readonly url: string;
  readonly schema: string;
  /** application_name of the node's connections (set through PGAPPNAME). */
  readonly appName: string;
  /** utime + stime (s) of each of the node's PostgreSQL backends by pid; undefined when /proc cannot tell. */
  backendCpu(): Promise<ReadonlyMap<number, number> | undefined>;
}

/** Drops the schemas a bench created on `url` (its nodes stopped first). */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    for (const schema of schemas) await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** CPU seconds the backends spent between two readings (a backend opened in between counts from 0). */
export function backendCpuDelta(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let seconds = 0;
  for (const [pid, cpu] of after) seconds += cpu - (before.get(pid) ?? 0);
  return seconds;
}

/** The database to use, or why the PostgreSQL scenarios are skipped. */
export async function openBenchDatabase(env: NodeJS.ProcessEnv, runId: string, ticksPerSecond: number, cleanup: Cleanup): Promise<BenchDatabase | string> {
  const url = env.BENCH_DATABASE_URL || env.TESSERA_TEST_DATABASE_URL;
  if (url === undefined || url === '') return 'neither BENCH_DATABASE_URL nor TESSERA_TEST_DATABASE_URL is set';
  const admin = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => undefined, connection: { application_name: `tessera-bench-admin-${runId}` } });
  try {
    await admin.unsafe('SELECT 1');
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => undefined);
    return `PostgreSQL at ${new URL(url).host} does not answer (${describeError(error)})`;
  }
  const schema = `tessera_bench_${runId}`;
  const appName = `tessera-bench-${runId}`;
  cleanup.addProcess(
    `drop schema ${schema}`,
    async () => {
      await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end({ timeout: 5 });
    },
    () => undefined,
  );
  return {
    url,
    schema,
    appName,
    async backendCpu() {
      const rows = await admin.unsafe<{ pid: number }[]>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [appName]);
      if (rows.length === 0) return undefined;
      try {
        return new Map(rows.map((row) => [Number(row.pid), processCpuSeconds(Number(row.pid), ticksPerSecond)]));
      } catch {
        // PostgreSQL on another host (or in a container): its processes are not in our /proc.
        return undefined;
      }
    },
  };
}
