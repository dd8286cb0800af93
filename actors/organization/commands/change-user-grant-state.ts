/** Deactivates or reactivates a user grant; a grant already in that state records nothing. */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { userKind } from '../user.js';
import { userGrantsKind } from '../user-grants.js';
import { requireUserGrant, userGrantDetails } from '../user-grant-rules.js';
import type { GrantStateAction } from './change-project-grant-state.js';

export interface ChangeUserGrantState {
  readonly grantId: string;
  readonly userId: string;
  readonly orgId: string;
  readonly action: GrantStateAction;
}

export const changeUserGrantState: CommandHandler<ChangeUserGrantState, ResourceDetails> = {
  load: (c) => [ref(userGrantsKind, c.userId), ref(userKind, c.userId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { grant } = requireUserGrant(loaded, c.orgId, c.userId, c.grantId);
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => userGrantDetails(outcome, grant, owner);
    const target = c.action === 'activate' ? 'active' : 'inactive';
    if (grant.state === target) return { events: [], reply };
    const type = c.action === 'activate' ? 'user.grant.reactivated' : 'user.grant.deactivated';
    return { events: [{ aggregateType: userGrantsKind.type, aggregateId: c.userId, type, owner, creator: ctx.creator, payload: { grantId: c.grantId } }], reply };
  },
};
