/** Sets (or replaces) a machine user's client secret; only its SHA-256 digest is recorded. */
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireMachine, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface SetMachineSecret extends UserCommand {
  /** SHA-256 (base64url) of the generated secret. */
  readonly digest: string;
}

export const setMachineSecret: CommandHandler<SetMachineSecret, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireMachine(requireUser(loaded, c));
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.machine.secret.set', payload: { digest: c.digest } })], reply: userReply(c.userId, record) };
  },
};
