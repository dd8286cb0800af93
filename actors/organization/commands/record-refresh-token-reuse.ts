/**
 * Records that a rotated refresh token of this user was presented again (RFC 9700 §4.14.2):
 * the security event of refresh-token reuse, written when the grant's token family is revoked.
 * Like the impersonation record it changes nothing but the event log.
 */
import type { CommandHandler } from '../../kernel/command.js';
import { createUserEvents, loadUser, requireUser, type UserCommand } from '../user-rules.js';

export interface RecordRefreshTokenReuse extends UserCommand {
  /** The client that presented the rotated token (its owner). */
  readonly clientId: string;
  /** The revoked grant (token family). */
  readonly grantId: string;
}

export const recordRefreshTokenReuse: CommandHandler<RecordRefreshTokenReuse, void> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.refresh.token.reused', payload: { clientId: c.clientId, grantId: c.grantId } })], reply: () => undefined };
  },
};
