/** Removes a machine user's client secret; 404 `user.secret_not_found` when none is set. */
import { notFound } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireMachine, requireUser, userReply, type UserCommand } from '../user-rules.js';

export type RemoveMachineSecret = UserCommand;

export const removeMachineSecret: CommandHandler<RemoveMachineSecret, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireMachine(requireUser(loaded, c));
    if (record.state.secretDigest === '') throw notFound('user.secret_not_found', 'the user has no client secret');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.machine.secret.removed', payload: {} })], reply: userReply(c.userId, record) };
  },
};
