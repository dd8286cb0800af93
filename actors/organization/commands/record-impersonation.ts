/**
 * Records that another user obtained tokens in this user's name (token exchange with an actor,
 * reference facts §5.3): the audit trail of impersonation. It changes nothing the user sees but
 * the event log, so it is written on every impersonating exchange, never merged or skipped.
 */
import type { CommandHandler } from '../../kernel/command.js';
import { createUserEvents, loadUser, requireUser, type UserCommand } from '../user-rules.js';

export interface RecordImpersonation extends UserCommand {
  /** The impersonating user (the actor token's subject). */
  readonly actorUserId: string;
  /** The client that exchanged the tokens. */
  readonly clientId: string;
}

export const recordImpersonation: CommandHandler<RecordImpersonation, void> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.impersonated', payload: { actorUserId: c.actorUserId, clientId: c.clientId } })], reply: () => undefined };
  },
};
