/** Adds a machine (service) user to an organization; usernames are unique per organization. */
import { alreadyExists, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { USERNAME_SCOPE, userKind, usernameKey } from '../user.js';

export interface AddMachineUser {
  readonly userId: string;
  readonly orgId: string;
  readonly username: string;
  readonly name: string;
  readonly description: string;
  readonly accessTokenType: 'bearer' | 'jwt';
}

export const addMachineUser: CommandHandler<AddMachineUser, ResourceDetails> = {
  load: (c) => [ref(userKind, c.userId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    if (loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    if (loaded.get(userKind, c.userId).version > 0) throw alreadyExists('user.exists', 'the user already exists');
    const owner = orgOwner(c.orgId);
    const { userId: _userId, ...payload } = c;
    return {
      events: [{ aggregateType: userKind.type, aggregateId: c.userId, type: 'user.machine.added', owner, creator: ctx.creator, payload }],
      claims: [{ scope: USERNAME_SCOPE, value: usernameKey(c.orgId, c.username), holder: c.userId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.userId, record: undefined, owner }),
    };
  },
};
