/**
 * `TtlStore.claim` on PostgreSQL: one INSERT … ON CONFLICT DO UPDATE … WHERE, so the row
 * lock decides between racing nodes. The row is written when absent, expired (by the
 * node's clock, as `ttl.get` judges it) or already held by the same holder (a lease renewal);
 * RETURNING tells whether it was.
 */
import type { Sql } from 'postgres';
import { checkInstance, checkPart, encodeValue, PREPARED } from './postgres-queries.js';

export const TTL_CLAIM = `INSERT INTO ttl_rows AS t (instance_id, table_name, key, value, expires_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (instance_id, table_name, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
  WHERE t.expires_at <= $6 OR t.value = excluded.value
  RETURNING 1 AS won`;

export async function claimTtlRow(
  sql: Sql,
  now: number,
  row: { instanceId: string; table: string; key: string; holder: string; expiresAt: number },
): Promise<boolean> {
  const params = [checkInstance(row.instanceId), checkPart(row.table), checkPart(row.key), encodeValue(row.holder), Math.floor(row.expiresAt), Math.floor(now)];
  const rows = await sql.unsafe(TTL_CLAIM, params, PREPARED);
  return rows.length === 1;
}
