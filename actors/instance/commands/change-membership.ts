/**
 * Replaces the roles of a membership. The same set of roles (in any order) records nothing;
 * taking IAM_OWNER from the last instance owner is refused (`membership.last_owner`).
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type AggregateRef, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { assertOwnerRemains, ownerCandidateRefs, type OwnerCandidate } from '../last-owner.js';
import { assertRolesFit, membershipEventType, membershipKind, parseMembershipId } from '../membership.js';

export interface ChangeMembership {
  readonly membershipId: string;
  readonly roles: readonly string[];
  /** Other instance owners (needed only when IAM_OWNER is taken away). */
  readonly otherOwners?: readonly OwnerCandidate[];
}

export const changeMembership: CommandHandler<ChangeMembership, ResourceDetails> = {
  load(c, ctx) {
    const refs: AggregateRef[] = [ref(membershipKind, c.membershipId), ...ownerCandidateRefs(ctx.instanceId, c.otherOwners)];
    const parsed = parseMembershipId(c.membershipId);
    if (parsed?.contextType === 'org') refs.push(ref(orgKind, parsed.contextId));
    return refs;
  },
  decide(loaded, c, ctx) {
    const current = loaded.get(membershipKind, c.membershipId).record;
    const parsed = parseMembershipId(c.membershipId);
    const orgGone = parsed?.contextType === 'org' && loaded.get(orgKind, parsed.contextId).record === undefined;
    if (current === undefined || orgGone) throw notFound('membership.not_found', 'membership not found');
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.membershipId, record: current, owner: current.meta.owner });
    if (sameRoles(current.state.roles, c.roles)) return { events: [], reply };
    assertRolesFit(current.state.contextType, c.roles);
    assertOwnerRemains(loaded, ctx.instanceId, current.state, c.roles, c.otherOwners);
    const { contextType, contextId, userId } = current.state;
    return {
      events: [
        {
          aggregateType: membershipKind.type,
          aggregateId: c.membershipId,
          type: membershipEventType(contextType, 'changed'),
          owner: current.meta.owner,
          creator: ctx.creator,
          payload: { contextType, contextId, userId, roles: [...c.roles] },
        },
      ],
      reply,
    };
  },
};

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((r) => right.has(r));
}
