/**
 * The instance must keep an owner: a change or removal that takes `IAM_OWNER` from an instance
 * membership needs proof that another live owner remains. The edge names candidates (other
 * instance memberships holding the role); the command loads them, so the append is conditional
 * on their versions too and two admins removing each other concurrently cannot both succeed.
 */
import { ref, type AggregateRef, type LoadedSet } from '../kernel/command.js';
import { failedPrecondition } from '../kernel/errors.js';
import { orgKind } from '../organization/org.js';
import { userKind } from '../organization/user.js';
import { membershipId, membershipKind, type Membership } from './membership.js';

export const INSTANCE_OWNER_ROLE = 'IAM_OWNER';

/** Another instance owner, as the edge found it (its user and the user's organization). */
export interface OwnerCandidate {
  readonly userId: string;
  readonly orgId: string;
}

export function ownerCandidateRefs(instanceId: string, candidates: readonly OwnerCandidate[] = []): AggregateRef[] {
  return candidates.flatMap((c) => [ref(membershipKind, membershipId('instance', instanceId, c.userId)), ref(userKind, c.userId), ref(orgKind, c.orgId)]);
}

/** True when a candidate other than `exceptUserId` is a live IAM_OWNER (user and its org exist). */
export function hasOtherOwner(loaded: LoadedSet, instanceId: string, candidates: readonly OwnerCandidate[], exceptUserId: string): boolean {
  return candidates.some((c) => {
    if (c.userId === exceptUserId) return false;
    const membership = loaded.get(membershipKind, membershipId('instance', instanceId, c.userId)).record;
    const user = loaded.get(userKind, c.userId).record;
    return (
      membership !== undefined &&
      membership.state.roles.includes(INSTANCE_OWNER_ROLE) &&
      user !== undefined &&
      user.state.orgId === c.orgId &&
      loaded.get(orgKind, c.orgId).record !== undefined
    );
  });
}

/** Throws `membership.last_owner` when `next` roles (undefined: removal) would leave the instance without an owner. */
export function assertOwnerRemains(
  loaded: LoadedSet,
  instanceId: string,
  current: Membership,
  next: readonly string[] | undefined,
  candidates: readonly OwnerCandidate[] = [],
): void {
  if (current.contextType !== 'instance' || !current.roles.includes(INSTANCE_OWNER_ROLE)) return;
  if (next?.includes(INSTANCE_OWNER_ROLE) === true) return;
  if (!hasOtherOwner(loaded, instanceId, candidates, current.userId)) {
    throw failedPrecondition('membership.last_owner', 'the last IAM_OWNER of the instance cannot be removed');
  }
}
