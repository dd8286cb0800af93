/**
 * Adds checks to a live session (e.g. the password after the user), extends its lifetime
 * (counted from now) and sets or removes metadata (an empty value removes the key). The user
 * must still be active. Nothing to record → nothing recorded.
 */
import type { CommandHandler } from '../../kernel/command.js';
import { invalidArgument } from '../../kernel/errors.js';
import type { DomainEvent } from '../../events.js';
import { MAX_SESSION_METADATA, mergeMetadata, sessionKind } from '../session.js';
import {
  checkEvents,
  createSessionEvents,
  loadSession,
  metadataChanges,
  requireActiveUser,
  requireSession,
  sessionReply,
  type SessionChecks,
  type SessionCommand,
} from '../session-rules.js';
import type { SessionWritten } from './create-session.js';

export interface CheckSession extends SessionCommand, SessionChecks {
  /** The session's user, as the edge read it (the session must still belong to it). */
  readonly userId: string;
  readonly lifetimeMs?: number;
  readonly metadata?: Readonly<Record<string, string>>;
}

export const checkSession: CommandHandler<CheckSession, SessionWritten> = {
  load: loadSession,
  decide(loaded, c, ctx) {
    const session = requireSession(loaded, c, ctx.now);
    if (session.state.userId !== c.userId) throw invalidArgument('session.user_mismatch', 'the session belongs to another user');
    const user = requireActiveUser(loaded, c.orgId, c.userId);
    const emit = createSessionEvents(c.sessionId, c.orgId, ctx);
    const events: DomainEvent[] = checkEvents(user, c, emit, ctx.now);
    if (c.lifetimeMs !== undefined) events.push(emit({ type: 'session.lifetime.set', payload: { expiresAt: ctx.now + c.lifetimeMs } }));
    const changes = metadataChanges(session.state.metadata, c.metadata);
    if (Object.keys(changes).length > 0) {
      if (mergeMetadata(session.state.metadata, changes).length > MAX_SESSION_METADATA) {
        throw invalidArgument('session.metadata_too_large', `at most ${MAX_SESSION_METADATA} metadata entries`, {
          violations: [{ field: 'session.metadata', description: `at most ${MAX_SESSION_METADATA} entries` }],
        });
      }
      events.push(emit({ type: 'session.metadata.set', payload: { metadata: changes } }));
    }
    const details = sessionReply(c.sessionId, c.orgId, session);
    return { events, reply: (outcome) => ({ details: details(outcome), session: events.length > 0 ? outcome.record(sessionKind, c.sessionId) : session }) };
  },
};
