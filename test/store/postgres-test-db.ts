/**
 * Test helpers for the PostgreSQL store: whether TESSERA_TEST_DATABASE_URL is set and the
 * server answers (otherwise the suites are skipped with the reason), and a fresh schema per
 * store so concurrent test runs never share tables.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export const TEST_DATABASE_URL = process.env.TESSERA_TEST_DATABASE_URL;

/** Undefined when PostgreSQL is usable, else why the PostgreSQL tests are skipped. */
export async function postgresUnavailable(): Promise<string | undefined> {
  if (TEST_DATABASE_URL === undefined || TEST_DATABASE_URL === '') return 'TESSERA_TEST_DATABASE_URL is not set';
  const sql = postgres(TEST_DATABASE_URL, { max: 1, connect_timeout: 3, onnotice: () => undefined });
  try {
    await sql.unsafe('SELECT 1');
    return undefined;
  } catch (err) {
    return `PostgreSQL at TESSERA_TEST_DATABASE_URL is unreachable (${err instanceof Error ? err.message : String(err)})`;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

export function freshSchemaName(): string {
  return `tessera_test_${randomBytes(6).toString('hex')}`;
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  if (TEST_DATABASE_URL === undefined) return;
  const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
