/**
 * Grants issued under a browser session, so that ending the session (end_session) revokes
 * their tokens: introspection and userinfo then report them inactive (seed: "Introspection
 * checks revocation (by client or logout)"). A TTL row per session lists its grant ids.
 */
import type { TtlStore } from '../../../actors/index.js';
import type { TokenStore } from './token-store.js';

const TABLE = 'oidc.session_grants';
const MAX_GRANTS = 200;

interface SessionGrants {
  readonly grantIds: readonly string[];
  /** Epoch ms until which the newest grant's tokens can live. */
  readonly until: number;
}

/** Records a grant of the session (read-modify-write: a lost concurrent append only skips a revocation). */
export async function rememberSessionGrant(ttl: TtlStore, instanceId: string, sessionId: string, grantId: string, until: number): Promise<void> {
  const row = (await ttl.get(instanceId, TABLE, sessionId)) as SessionGrants | undefined;
  const grantIds = [grantId, ...(row?.grantIds ?? [])].slice(0, MAX_GRANTS);
  const keepUntil = Math.max(until, row?.until ?? 0);
  await ttl.put(instanceId, TABLE, sessionId, { grantIds, until: keepUntil } satisfies SessionGrants, keepUntil);
}

/** Revokes every grant recorded for the session. */
export async function revokeSessionGrants(ttl: TtlStore, tokens: TokenStore, instanceId: string, sessionId: string): Promise<void> {
  const row = (await ttl.take(instanceId, TABLE, sessionId)) as SessionGrants | undefined;
  if (row === undefined) return;
  await Promise.all(row.grantIds.map((grantId) => tokens.revokeGrant(instanceId, grantId, row.until)));
}
