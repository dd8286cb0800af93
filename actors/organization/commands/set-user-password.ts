/**
 * Sets a human user's password. The edge checked complexity and hashed it; for a self-service
 * change it also verified the current password. Resets the failed-attempts counter.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface SetUserPassword extends UserCommand {
  /** argon2id PHC string. */
  readonly passwordHash: string;
  readonly changeRequired: boolean;
  /**
   * For a self-service change: the hash the current password was verified against. If the
   * password changed meanwhile the command fails instead of overwriting the newer one.
   */
  readonly verifiedHash?: string;
}

export const setUserPassword: CommandHandler<SetUserPassword, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (c.verifiedHash !== undefined && c.verifiedHash !== record.state.passwordHash) {
      throw failedPrecondition('user.password.changed_meanwhile', 'the password was changed meanwhile; try again');
    }
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return {
      events: [emit({ type: 'user.human.password.changed', payload: { passwordHash: c.passwordHash, changeRequired: c.changeRequired } })],
      reply: userReply(c.userId, record),
    };
  },
};
