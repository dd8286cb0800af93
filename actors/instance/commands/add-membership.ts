/** Gives a user roles in a context; (context, user) is unique, so adding twice is a conflict. */
import { alreadyExists, invalidArgument, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { ROLES, isRoleName } from '../../kernel/roles.js';
import { userKind } from '../../organization/user.js';
import { membershipEventType, membershipId, membershipKind, type MembershipContext } from '../membership.js';

export interface AddMembership {
  readonly contextType: MembershipContext;
  readonly contextId: string;
  readonly userId: string;
  readonly roles: readonly string[];
}

export const addMembership: CommandHandler<AddMembership, ResourceDetails> = {
  load: (c) => [ref(membershipKind, membershipId(c.contextType, c.contextId, c.userId)), ref(userKind, c.userId)],
  decide(loaded, c, ctx) {
    const id = membershipId(c.contextType, c.contextId, c.userId);
    if (loaded.get(userKind, c.userId).record === undefined) throw notFound('user.not_found', 'user not found');
    if (loaded.get(membershipKind, id).record !== undefined) throw alreadyExists('membership.exists', 'the user is already a member in this context');
    for (const role of c.roles) {
      if (!isRoleName(role) || ROLES[role].context !== c.contextType) {
        throw invalidArgument('membership.role_invalid', 'a role is not available in this context', {
          violations: [{ field: 'roles', description: 'unknown role for this context' }],
        });
      }
    }
    const owner = c.contextType === 'org' ? orgOwner(c.contextId) : instanceOwner(ctx.instanceId);
    return {
      events: [
        {
          aggregateType: membershipKind.type,
          aggregateId: id,
          type: membershipEventType(c.contextType, 'added'),
          owner,
          creator: ctx.creator,
          payload: { contextType: c.contextType, contextId: c.contextId, userId: c.userId, roles: [...c.roles] },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id, record: undefined, owner }),
    };
  },
};
