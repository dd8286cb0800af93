/**
 * Readiness of the PostgreSQL store: `SELECT 1` on a connection of its own (so a busy pool does
 * not read as a dead database), within a deadline; the connection is opened on the first check
 * and reconnects like the pool's (postgres-store.ts).
 */
import type { Sql } from 'postgres';
import { withDeadline } from './postgres-unavailable.js';

export interface HealthCheck {
  check(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export function createHealthCheck(connect: () => Sql): HealthCheck {
  let sql: Sql | undefined;
  return {
    async check(timeoutMs) {
      sql ??= connect();
      await withDeadline(sql.unsafe('SELECT 1').execute(), timeoutMs);
    },
    async close() {
      await sql?.end({ timeout: 1 });
    },
  };
}
