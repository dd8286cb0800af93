/** Removes a JSON key of a machine user; assertions signed with it no longer verify. */
import { notFound } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireMachine, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface RemoveMachineKey extends UserCommand {
  readonly keyId: string;
}

export const removeMachineKey: CommandHandler<RemoveMachineKey, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireMachine(requireUser(loaded, c));
    if (!record.state.keys.some((k) => k.id === c.keyId)) throw notFound('key.not_found', 'machine key not found');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.machine.key.removed', payload: { id: c.keyId } })], reply: userReply(c.userId, record) };
  },
};
