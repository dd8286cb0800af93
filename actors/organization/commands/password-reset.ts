/**
 * Password reset by a code (issue 14). `requestPasswordReset` records the code's digest on the
 * user and queues the message carrying the code in the same append (the durable outbox,
 * outbox-message.ts). `resetPasswordWithCode` checks the digest and expiry, sets the new
 * password (hashed and checked against the complexity policy at the edge), which clears the
 * code (single use), and terminates the user's sessions the edge found (every live session of
 * the user in its organization) in the same append.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { failedPrecondition, invalidArgument } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { UniqueRelease } from '../../kernel/ports.js';
import type { DomainEvent } from '../../events.js';
import { emitter } from '../../kernel/events.js';
import { outboxMessageKind, type MessageQueuedPayload } from '../outbox-message.js';
import { isSessionLive, SESSION_TOKEN_SCOPE, sessionKind } from '../session.js';
import { createSessionEvents } from '../session-rules.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface RequestPasswordReset extends UserCommand {
  /** SHA-256 (base64url) of the code; the code itself only travels in the sealed message. */
  readonly codeHash: string;
  readonly expiresAt: number;
  /** Id of the outbox message to queue. */
  readonly messageId: string;
  /** The message; `to` is filled in from the user's email address here. */
  readonly message: Omit<MessageQueuedPayload, 'to' | 'channel'>;
}

export interface PasswordResetRequested {
  readonly details: ResourceDetails;
  /** The address the code was sent to. */
  readonly to: string;
}

export const requestPasswordReset: CommandHandler<RequestPasswordReset, PasswordResetRequested> = {
  load: (c) => [...loadUser(c), ref(outboxMessageKind, c.messageId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    if (user.state !== 'active' && user.state !== 'locked') throw failedPrecondition('user.not_active', 'the user is not active');
    if (user.email.address === '') throw failedPrecondition('user.email.missing', 'the user has no email address to send a reset code to');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const queued: MessageQueuedPayload = { ...c.message, channel: 'mail', to: user.email.address };
    const events: DomainEvent[] = [
      emit({ type: 'user.human.password.code.added', payload: { codeHash: c.codeHash, expiresAt: c.expiresAt, channel: 'mail', messageId: c.messageId } }),
      emitter(outboxMessageKind, c.messageId, record.meta.owner, ctx.creator)({ type: 'message.queued', payload: queued }),
    ];
    const reply = userReply(c.userId, record);
    return { events, reply: (outcome) => ({ details: reply(outcome), to: user.email.address }) };
  },
};

const CODE_FIELD = { violations: [{ field: 'code', description: 'invalid or expired code' }] };

export interface ResetPasswordWithCode extends UserCommand {
  readonly codeHash: string;
  /** argon2id PHC string of the new password. */
  readonly passwordHash: string;
  /** The user's sessions to end (the edge lists them from the sessions index). */
  readonly sessionIds: readonly string[];
}

export interface PasswordResetDone {
  readonly details: ResourceDetails;
  readonly terminatedSessions: number;
}

export const resetPasswordWithCode: CommandHandler<ResetPasswordWithCode, PasswordResetDone> = {
  load: (c) => [...loadUser(c), ...c.sessionIds.map((id) => ref(sessionKind, id))],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const pending = record.state.passwordReset;
    if (pending === undefined) throw invalidArgument('user.password.code_invalid', 'the code is invalid or was already used', CODE_FIELD);
    if (!sameDigest(pending.codeHash, c.codeHash)) throw invalidArgument('user.password.code_invalid', 'the code is invalid or was already used', CODE_FIELD);
    if (pending.expiresAt <= ctx.now) throw invalidArgument('user.password.code_expired', 'the code has expired; request a new one', CODE_FIELD);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const events: DomainEvent[] = [emit({ type: 'user.human.password.changed', payload: { passwordHash: c.passwordHash, changeRequired: false } })];
    const releases: UniqueRelease[] = [];
    for (const sessionId of c.sessionIds) {
      const session = loaded.get(sessionKind, sessionId).record;
      if (!isSessionLive(session, ctx.now) || session.state.userId !== c.userId) continue;
      events.push(createSessionEvents(sessionId, c.orgId, ctx)({ type: 'session.terminated', payload: {} }));
      if (session.state.tokenDigest !== '') releases.push({ scope: SESSION_TOKEN_SCOPE, value: session.state.tokenDigest });
    }
    const reply = userReply(c.userId, record);
    return { events, releases, reply: (outcome) => ({ details: reply(outcome), terminatedSessions: events.length - 1 }) };
  },
};

/** Compares two digests without stopping at the first difference. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
