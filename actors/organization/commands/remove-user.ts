/** Removes a user and releases everything it held: username claims and token digests. */
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { allReleases, createUserEvents, loadUser, requireUser, userReply, type UserCommand } from '../user-rules.js';

export type RemoveUser = UserCommand;

export const removeUser: CommandHandler<RemoveUser, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit('user.removed')], releases: allReleases(record.state), reply: userReply(c.userId, record) };
  },
};
