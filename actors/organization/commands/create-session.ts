/**
 * Creates a session for a user with the checks proven on creation: the user check always,
 * plus a password (humans) or a personal access token (machines). The user must be active.
 * The session token's digest is claimed under `session.token`.
 */
import type { AggregateRecord } from '../../kernel/aggregate.js';
import type { CommandHandler } from '../../kernel/command.js';
import { alreadyExists, invalidArgument } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { MAX_SESSION_METADATA, mergeMetadata, SESSION_TOKEN_SCOPE, sessionKind, type Session, type SessionUserAgent } from '../session.js';
import { checkEvents, createSessionEvents, loadSession, requireActiveUser, sessionReply, type SessionChecks } from '../session-rules.js';

export interface CreateSession extends SessionChecks {
  readonly sessionId: string;
  readonly orgId: string;
  readonly userId: string;
  /** SHA-256 digest (base64url) of the generated session token. */
  readonly tokenDigest: string;
  readonly lifetimeMs: number;
  readonly metadata: Readonly<Record<string, string>>;
  readonly userAgent: SessionUserAgent;
}

export interface SessionWritten {
  readonly details: ResourceDetails;
  /** The session after the command (undefined once terminated). */
  readonly session: AggregateRecord<Session> | undefined;
}

export const createSession: CommandHandler<CreateSession, SessionWritten> = {
  load: loadSession,
  decide(loaded, c, ctx) {
    if (loaded.get(sessionKind, c.sessionId).version > 0) throw alreadyExists('session.exists', 'the session already exists');
    const user = requireActiveUser(loaded, c.orgId, c.userId);
    const emit = createSessionEvents(c.sessionId, c.orgId, ctx);
    const metadata = Object.fromEntries(Object.entries(c.metadata).filter(([, v]) => v !== ''));
    if (mergeMetadata([], metadata).length > MAX_SESSION_METADATA) {
      throw invalidArgument('session.metadata_too_large', `at most ${MAX_SESSION_METADATA} metadata entries`, {
        violations: [{ field: 'session.metadata', description: `at most ${MAX_SESSION_METADATA} entries` }],
      });
    }
    const events = [
      emit({ type: 'session.added', payload: { userAgent: c.userAgent } }),
      emit({ type: 'session.user.checked', payload: { userId: c.userId } }),
      ...checkEvents(user, c, emit, ctx.now),
      emit({ type: 'session.token.set', payload: { digest: c.tokenDigest } }),
      emit({ type: 'session.lifetime.set', payload: { expiresAt: ctx.now + c.lifetimeMs } }),
    ];
    if (Object.keys(metadata).length > 0) events.push(emit({ type: 'session.metadata.set', payload: { metadata } }));
    const details = sessionReply(c.sessionId, c.orgId, undefined);
    return {
      events,
      claims: [{ scope: SESSION_TOKEN_SCOPE, value: c.tokenDigest, holder: c.sessionId }],
      reply: (outcome) => ({ details: details(outcome), session: outcome.record(sessionKind, c.sessionId) }),
    };
  },
};
