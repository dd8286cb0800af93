/**
 * Test helpers for the PostgreSQL store: the database of TESSERA_TEST_DATABASE_URL (whether it
 * answers is POSTGRES in test/requirements.ts) and a fresh schema per store so concurrent test
 * runs never share tables.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export const TEST_DATABASE_URL = process.env.TESSERA_TEST_DATABASE_URL;

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
