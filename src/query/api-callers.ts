/**
 * API callers by personal access token, held by the instance's read state (docs/architecture.md
 * "Instance read state"; issue #15): a PAT's digest → its machine user and the roles of the
 * user's live instance membership, read once instead of on every API call (the unique claim, the
 * user, the membership and the user's organization: four store reads and three decodes). Held at
 * the versions read of the `user`, `membership` and `org` streams, so the one invalidation (this
 * node's own appends, the worker feed, the PostgreSQL change feed) drops it when one moves. Only
 * what grants is taken from here: a held value that would refuse (unknown, expired, inactive, no
 * instance role) sends auth.ts back to the store, so a PAT or role given on another node works
 * at once; one revoked there is still accepted here until the change feed's change arrives.
 */
import {
  type ActorSystem,
  type HeldById,
  type HeldFamily,
  membershipId,
  membershipKind,
  orgKind,
  PAT_SCOPE,
  streamAt,
  userKind,
} from '../../actors/index.js';

/** A PAT as held: whose it is, until when, and the roles of its user's live instance membership. */
export type HeldCaller =
  | { readonly kind: 'unknown' }
  | {
      readonly kind: 'pat';
      readonly userId: string;
      readonly orgId: string;
      readonly active: boolean;
      readonly expiresAt: number;
      /** Undefined without a live instance membership (owned by the instance) when read. */
      readonly instanceRoles: readonly string[] | undefined;
    };

export interface ApiCallers {
  /** The held caller of a PAT digest (synchronously), else its load. */
  resolve(instanceId: string, digest: string): HeldCaller | Promise<HeldCaller>;
}

/** PATs held per instance (found / unknown digests), the oldest first. */
export const MAX_CALLERS = 10_000;
export const MAX_UNKNOWN_DIGESTS = 1_000;

const UNKNOWN: HeldCaller = Object.freeze({ kind: 'unknown' });
const UNKNOWN_HELD: HeldById<HeldCaller> = Object.freeze({ value: UNKNOWN, streams: undefined });
/** A PAT is added with its user's stream; a membership or an organization can make a loaded value stale while it loads. */
const CALLER_TYPES = [userKind.type, membershipKind.type, orgKind.type];

export function createApiCallers(actors: ActorSystem): ApiCallers & { readonly family: HeldFamily<HeldCaller> } {
  const family: HeldFamily<HeldCaller> = {
    name: 'api callers',
    max: MAX_CALLERS,
    maxMisses: MAX_UNKNOWN_DIGESTS,
    types: CALLER_TYPES,
    load: (instanceId, digest) => lookupCaller(actors, instanceId, digest),
  };
  return {
    family,
    resolve: (instanceId, digest) => actors.instanceState(instanceId).holdById(family, digest),
  };
}

async function lookupCaller(actors: ActorSystem, instanceId: string, digest: string): Promise<HeldById<HeldCaller>> {
  const userId = await actors.findUnique(instanceId, PAT_SCOPE, digest);
  const user = userId === undefined ? undefined : await actors.readRecord(instanceId, userKind, userId);
  const pat = user?.state.type === 'machine' ? user.state.tokens.find((t) => t.digest === digest) : undefined;
  if (user === undefined || pat === undefined) return UNKNOWN_HELD;
  const id = membershipId('instance', instanceId, user.id);
  const [membership, org] = await Promise.all([actors.readRecord(instanceId, membershipKind, id), actors.readRecord(instanceId, orgKind, user.state.orgId)]);
  // Live as auth.ts isMembershipLive decides it; one owned by an organization is left to the store path.
  const live = membership !== undefined && org !== undefined && membership.meta.owner.type !== 'org';
  return {
    value: { kind: 'pat', userId: user.id, orgId: user.state.orgId, active: user.state.state === 'active', expiresAt: pat.expiresAt, instanceRoles: live ? membership.state.roles : undefined },
    streams: [streamAt(userKind.type, user.id, user), streamAt(membershipKind.type, id, membership), streamAt(orgKind.type, user.state.orgId, org)],
  };
}
