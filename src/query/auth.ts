/**
 * API authentication and authorization. A bearer token is looked up by its SHA-256 digest
 * (generated tokens are random, so a slow hash adds only latency); permissions come from the
 * caller's memberships → roles → permissions (docs/permissions.md).
 */
import {
  type ActorSystem,
  type AggregateKind,
  type AggregateRecord,
  type Membership,
  type MembershipContext,
  membershipId,
  membershipKind,
  orgKind,
  PAT_SCOPE,
  rolesGrant,
  unauthenticated,
  userKind,
} from '../../actors/index.js';
import { tokenDigest } from '../crypto/token-digest.js';
import type { ApiCallers } from './api-callers.js';

export interface Caller {
  readonly userId: string;
  /** The organization the caller's user belongs to. */
  readonly orgId: string;
  /** Roles of the caller's live instance membership as held with its PAT (api-callers.ts); they only grant, never refuse. */
  readonly instanceRoles?: readonly string[] | undefined;
}

/**
 * Resolves OAuth access tokens this server issued (audience `platform`, docs/oidc/token.md) to
 * callers; implemented by src/oidc and passed in by the composition root.
 */
export interface AccessTokenAuthenticator {
  callerOf(instanceId: string, token: string): Promise<Caller | undefined>;
}

/**
 * Returns the caller of a request or throws `unauthenticated`. With `callers`, a PAT held there
 * that is valid at `now` answers without a store read; anything else is decided on the store.
 */
export async function authenticate(
  actors: ActorSystem,
  instanceId: string,
  authorization: string | undefined,
  now: number,
  accessTokens?: AccessTokenAuthenticator,
  callers?: ApiCallers,
): Promise<Caller> {
  const token = bearerToken(authorization);
  if (token === undefined) throw unauthenticated('auth.missing_token', 'authentication required: send Authorization: Bearer <token>');
  const digest = tokenDigest(token);
  if (callers !== undefined) {
    const found = callers.resolve(instanceId, digest);
    const held = found instanceof Promise ? await found : found;
    if (held.kind === 'pat' && held.active && held.expiresAt > now) return { userId: held.userId, orgId: held.orgId, instanceRoles: held.instanceRoles };
  }
  const userId = await actors.findUnique(instanceId, PAT_SCOPE, digest);
  const user = userId === undefined ? undefined : await actors.readRecord(instanceId, userKind, userId);
  const pat = user?.state.type === 'machine' ? user.state.tokens.find((t) => t.digest === digest) : undefined;
  if (userId === undefined && accessTokens !== undefined) {
    const caller = await accessTokens.callerOf(instanceId, token);
    if (caller !== undefined) return caller;
  }
  if (user === undefined || pat === undefined || pat.expiresAt <= now) {
    throw unauthenticated('auth.invalid_token', 'the access token is invalid or expired');
  }
  if (user.state.state !== 'active') throw unauthenticated('auth.user_inactive', 'the user of this token is not active');
  return { userId: user.id, orgId: user.state.orgId };
}

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

/**
 * True when the caller's memberships grant the permission: instance roles anywhere, roles in
 * `orgId` for that organization, roles in `projectId` for that project. Read-time tombstones:
 * a membership grants nothing once its user is gone (removed, or its organization removed) or
 * once the organization it belongs to (an org membership's org, a project's org) is removed.
 */
export async function callerCan(
  actors: ActorSystem,
  instanceId: string,
  caller: Caller,
  permission: string,
  orgId?: string,
  projectId?: string,
): Promise<boolean> {
  // Held with the caller's PAT (a live instance membership when read): grants without a read.
  if (caller.instanceRoles !== undefined && rolesGrant(caller.instanceRoles, permission)) return true;
  const contexts: [MembershipContext, string][] = [['instance', instanceId]];
  if (orgId !== undefined && orgId !== '') contexts.push(['org', orgId]);
  if (projectId !== undefined && projectId !== '') contexts.push(['project', projectId]);
  for (const [type, id] of contexts) {
    const membership = await actors.readRecord(instanceId, membershipKind, membershipId(type, id, caller.userId));
    if (membership !== undefined && rolesGrant(membership.state.roles, permission) && (await isMembershipLive(actors, instanceId, membership))) {
      return true;
    }
  }
  return false;
}

/** False when the membership's user is gone or the organization owning it was removed. */
export async function isMembershipLive(actors: ActorSystem, instanceId: string, membership: AggregateRecord<Membership>): Promise<boolean> {
  const exists = async (kind: AggregateKind<unknown>, id: string) => (await actors.readRecord(instanceId, kind, id)) !== undefined;
  const user = await actors.readRecord(instanceId, userKind, membership.state.userId);
  if (user === undefined || !(await exists(orgKind, user.state.orgId))) return false;
  const owner = membership.meta.owner;
  return owner.type !== 'org' || (await exists(orgKind, owner.id));
}
