/** Terminates a live session: the session is removed and its token digest released. */
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { SESSION_TOKEN_SCOPE } from '../session.js';
import { createSessionEvents, loadSession, requireSession, sessionReply, type SessionCommand } from '../session-rules.js';

export type TerminateSession = SessionCommand;

export const terminateSession: CommandHandler<TerminateSession, ResourceDetails> = {
  load: loadSession,
  decide(loaded, c, ctx) {
    const session = requireSession(loaded, c, ctx.now);
    return {
      events: [createSessionEvents(c.sessionId, c.orgId, ctx)({ type: 'session.terminated', payload: {} })],
      releases: [{ scope: SESSION_TOKEN_SCOPE, value: session.state.tokenDigest }],
      reply: sessionReply(c.sessionId, c.orgId, session),
    };
  },
};
