/** Sets one metadata entry of a user (key → base64 bytes); the same value again records nothing. */
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface SetUserMetadata extends UserCommand {
  readonly key: string;
  /** Standard base64. */
  readonly value: string;
}

export const setUserMetadata: CommandHandler<SetUserMetadata, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const reply = userReply(c.userId, record);
    if (record.state.metadata.some((m) => m.key === c.key && m.value === c.value)) return { events: [], reply };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.metadata.set', payload: { key: c.key, value: c.value } })], reply };
  },
};
