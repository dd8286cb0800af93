/** Marks a human user's email address or phone number as verified (an administrator's statement). */
import { failedPrecondition } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface VerifyUserContact extends UserCommand {
  readonly channel: 'email' | 'phone';
}

export const verifyUserContact: CommandHandler<VerifyUserContact, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const reply = userReply(c.userId, record);
    const contact = c.channel === 'email' ? { value: record.state.email.address, ...record.state.email } : { value: record.state.phone.number, ...record.state.phone };
    if (contact.value === '') throw failedPrecondition(`user.${c.channel}_missing`, `the user has no ${c.channel}`);
    if (contact.verified) return { events: [], reply };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: c.channel === 'email' ? 'user.human.email.verified' : 'user.human.phone.verified', payload: {} })], reply };
  },
};
