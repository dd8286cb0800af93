/**
 * Removes a user and releases everything it held: username claims and token digests. The
 * instance keeps an owner: when `otherOwners` is given (the API always gives it), removing a
 * user whose instance membership holds `IAM_OWNER` needs another live owner among them (found
 * by the edge, re-checked here against the reads the append is conditional on), else 400
 * `membership.last_owner`. Internal callers that omit it skip the rule.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { assertOwnerRemains, ownerCandidateRefs, type OwnerCandidate } from '../../instance/last-owner.js';
import { membershipId, membershipKind } from '../../instance/membership.js';
import { allReleases, createUserEvents, loadUser, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface RemoveUser extends UserCommand {
  /** Other live instance owners; given → the last-owner rule applies (may be empty for non-owners). */
  readonly otherOwners?: readonly OwnerCandidate[];
}

export const removeUser: CommandHandler<RemoveUser, ResourceDetails> = {
  load: (c, ctx) => [
    ...loadUser(c),
    ref(membershipKind, membershipId('instance', ctx.instanceId, c.userId)),
    ...ownerCandidateRefs(ctx.instanceId, c.otherOwners),
  ],
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const membership = loaded.get(membershipKind, membershipId('instance', ctx.instanceId, c.userId)).record;
    if (membership !== undefined && c.otherOwners !== undefined) assertOwnerRemains(loaded, ctx.instanceId, membership.state, undefined, c.otherOwners);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.removed', payload: {} })], releases: allReleases(record.state), reply: userReply(c.userId, record) };
  },
};
