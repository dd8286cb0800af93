/** Removes a membership; the last IAM_OWNER of the instance cannot be removed (`membership.last_owner`). */
import { notFound } from '../../kernel/errors.js';
import { ref, type AggregateRef, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { assertOwnerRemains, ownerCandidateRefs, type OwnerCandidate } from '../last-owner.js';
import { membershipEventType, membershipKind, parseMembershipId } from '../membership.js';

export interface RemoveMembership {
  readonly membershipId: string;
  /** Other instance owners (needed only when an IAM_OWNER membership is removed). */
  readonly otherOwners?: readonly OwnerCandidate[];
}

export const removeMembership: CommandHandler<RemoveMembership, ResourceDetails> = {
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
    assertOwnerRemains(loaded, ctx.instanceId, current.state, undefined, c.otherOwners);
    const { contextType, contextId, userId, roles } = current.state;
    return {
      events: [
        {
          aggregateType: membershipKind.type,
          aggregateId: c.membershipId,
          type: membershipEventType(contextType, 'removed'),
          owner: current.meta.owner,
          creator: ctx.creator,
          payload: { contextType, contextId, userId, roles: [...roles] },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.membershipId, record: current, owner: current.meta.owner }),
    };
  },
};
