/** Removes one metadata entry of a user; 404 `user.metadata_not_found` when the key is not set. */
import { notFound } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface RemoveUserMetadata extends UserCommand {
  readonly key: string;
}

export const removeUserMetadata: CommandHandler<RemoveUserMetadata, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    if (!record.state.metadata.some((m) => m.key === c.key)) throw notFound('user.metadata_not_found', 'metadata key not found');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.metadata.removed', payload: { key: c.key } })], reply: userReply(c.userId, record) };
  },
};
