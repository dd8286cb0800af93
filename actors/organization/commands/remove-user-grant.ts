/** Removes a user grant and releases its id claim. */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { userKind } from '../user.js';
import { USER_GRANT_ID_SCOPE, userGrantsKind } from '../user-grants.js';
import { requireUserGrant, userGrantDetails } from '../user-grant-rules.js';

export interface RemoveUserGrant {
  readonly grantId: string;
  readonly userId: string;
  readonly orgId: string;
}

export const removeUserGrant: CommandHandler<RemoveUserGrant, ResourceDetails> = {
  load: (c) => [ref(userGrantsKind, c.userId), ref(userKind, c.userId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { grant } = requireUserGrant(loaded, c.orgId, c.userId, c.grantId);
    const owner = orgOwner(c.orgId);
    return {
      events: [
        { aggregateType: userGrantsKind.type, aggregateId: c.userId, type: 'user.grant.removed', owner, creator: ctx.creator, payload: { grantId: c.grantId } },
      ],
      releases: [{ scope: USER_GRANT_ID_SCOPE, value: c.grantId }],
      reply: (outcome) => userGrantDetails(outcome, grant, owner),
    };
  },
};
