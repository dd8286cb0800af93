/**
 * API authentication and authorization. A bearer token is looked up by its SHA-256 digest
 * (generated tokens are random, so a slow hash adds only latency); permissions come from the
 * caller's memberships → roles → permissions (docs/permissions.md).
 */
import { createHash } from 'node:crypto';
import {
  type ActorSystem,
  membershipId,
  membershipKind,
  PAT_SCOPE,
  rolesGrant,
  unauthenticated,
  userKind,
} from '../../actors/index.js';

export interface Caller {
  readonly userId: string;
  /** The organization the caller's user belongs to. */
  readonly orgId: string;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Returns the caller of a request or throws `unauthenticated`. */
export async function authenticate(
  actors: ActorSystem,
  instanceId: string,
  authorization: string | undefined,
  now: number,
): Promise<Caller> {
  const token = bearerToken(authorization);
  if (token === undefined) throw unauthenticated('auth.missing_token', 'authentication required: send Authorization: Bearer <token>');
  const digest = tokenDigest(token);
  const userId = await actors.findUnique(instanceId, PAT_SCOPE, digest);
  const user = userId === undefined ? undefined : await actors.readRecord(instanceId, userKind, userId);
  const pat = user?.state.tokens.find((t) => t.digest === digest);
  if (user === undefined || pat === undefined || pat.expiresAt <= now) {
    throw unauthenticated('auth.invalid_token', 'the access token is invalid or expired');
  }
  if (user.state.state !== 'active') throw unauthenticated('auth.user_inactive', 'the user of this token is not active');
  return { userId: user.id, orgId: user.state.orgId };
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

/** True when the caller's instance roles, or roles in `orgId`, grant the permission. */
export async function callerCan(
  actors: ActorSystem,
  instanceId: string,
  caller: Caller,
  permission: string,
  orgId?: string,
): Promise<boolean> {
  const instanceMembership = await actors.readRecord(instanceId, membershipKind, membershipId('instance', instanceId, caller.userId));
  if (instanceMembership !== undefined && rolesGrant(instanceMembership.state.roles, permission)) return true;
  if (orgId === undefined || orgId === '') return false;
  const orgMembership = await actors.readRecord(instanceId, membershipKind, membershipId('org', orgId, caller.userId));
  return orgMembership !== undefined && rolesGrant(orgMembership.state.roles, permission);
}
