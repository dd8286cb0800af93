/**
 * Grants a user roles of a project: a subset of the project's roles, and for a user outside
 * the project's organization also of that organization's project grant. One grant per
 * (user, project); the grant id is claimed under `user.grant.id` (lookup by id).
 */
import { alreadyExists, failedPrecondition } from '../../kernel/errors.js';
import { type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { normalizeRoleKeys } from '../project-grant.js';
import { MAX_USER_GRANTS, USER_GRANT_ID_SCOPE, userGrantsKind } from '../user-grants.js';
import { checkGrantableRoles, requireGrantUser, userGrantRefs, type UserGrantTarget } from '../user-grant-rules.js';

export interface AddUserGrant extends UserGrantTarget {
  readonly grantId: string;
  readonly roleKeys: readonly string[];
}

export const addUserGrant: CommandHandler<AddUserGrant, ResourceDetails> = {
  load: (c) => userGrantRefs(c),
  decide(loaded, c, ctx) {
    requireGrantUser(loaded, c.orgId, c.userId);
    const roleKeys = normalizeRoleKeys(c.roleKeys);
    checkGrantableRoles(loaded, c, roleKeys, 'userGrant');
    const grants = loaded.get(userGrantsKind, c.userId).record?.state.grants ?? [];
    if (grants.some((g) => g.id === c.grantId)) throw alreadyExists('user_grant.exists', 'the user grant already exists');
    if (grants.some((g) => g.projectId === c.projectId)) throw alreadyExists('user_grant.exists', 'the user already has a grant on this project');
    if (grants.length >= MAX_USER_GRANTS) throw failedPrecondition('user_grant.too_many', `a user has at most ${MAX_USER_GRANTS} grants`);
    const owner = orgOwner(c.orgId);
    const payload = { grantId: c.grantId, userId: c.userId, projectId: c.projectId, projectGrantId: c.projectGrantId, roleKeys };
    return {
      events: [{ aggregateType: userGrantsKind.type, aggregateId: c.userId, type: 'user.grant.added', owner, creator: ctx.creator, payload }],
      claims: [{ scope: USER_GRANT_ID_SCOPE, value: c.grantId, holder: c.userId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.grantId, record: undefined, owner }),
    };
  },
};
