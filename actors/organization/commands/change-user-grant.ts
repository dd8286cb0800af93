/**
 * Replaces a user grant's role keys, checked like on creation against the project (and the
 * project grant). A change that changes nothing records nothing.
 */
import { notFound } from '../../kernel/errors.js';
import { type CommandHandler, type Outcome } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { normalizeRoleKeys } from '../project-grant.js';
import { userGrantsKind } from '../user-grants.js';
import { checkGrantableRoles, requireUserGrant, userGrantDetails, userGrantRefs, type UserGrantTarget } from '../user-grant-rules.js';
import { sameKeys } from './change-project-grant.js';

export interface ChangeUserGrant extends UserGrantTarget {
  readonly grantId: string;
  readonly roleKeys: readonly string[];
}

export const changeUserGrant: CommandHandler<ChangeUserGrant, ResourceDetails> = {
  load: (c) => userGrantRefs(c),
  decide(loaded, c, ctx) {
    const { grant } = requireUserGrant(loaded, c.orgId, c.userId, c.grantId);
    if (grant.projectId !== c.projectId || grant.projectGrantId !== c.projectGrantId) throw notFound('user_grant.not_found', 'user grant not found');
    const roleKeys = normalizeRoleKeys(c.roleKeys);
    checkGrantableRoles(loaded, c, roleKeys, 'userGrant', 'userGrant.roleKeys.keys');
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => userGrantDetails(outcome, grant, owner);
    if (sameKeys(roleKeys, grant.roleKeys)) return { events: [], reply };
    const payload = { grantId: c.grantId, roleKeys };
    return { events: [{ aggregateType: userGrantsKind.type, aggregateId: c.userId, type: 'user.grant.changed', owner, creator: ctx.creator, payload }], reply };
  },
};
