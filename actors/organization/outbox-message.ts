/**
 * The durable outbox (issue 14): a message to send (a mail or an SMS) is an aggregate of the
 * organization whose fact caused it, queued by `message.queued` in the SAME append as that
 * fact (e.g. `user.human.password.code.added`), so a crash can never keep the fact and lose
 * the message. The row of a message exists only while it is pending: the outbox worker
 * (src/delivery/outbox.ts) scans the table `outbox_messages`, sends, and records the outcome —
 * `message.delivered` after the provider accepted it (the row goes away, so it is never sent
 * again), `message.attempt.failed` with the next attempt's time (exponential backoff), or
 * `message.abandoned` after the last attempt. The text is sealed: it carries a secret code.
 */
import { outboxMessageEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';

export type MessageChannel = 'mail' | 'sms';

export interface OutboxMessage {
  readonly orgId: string;
  readonly channel: MessageChannel;
  /** Email address or phone number. */
  readonly to: string;
  readonly subject: string;
  /** Sealed with the node's secret sealer. */
  readonly text: string;
  /** What the message is for, e.g. `password.reset` (logs and metrics). */
  readonly purpose: string;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Epoch ms before which the message is not tried again (0: at once). */
  readonly nextAttemptAt: number;
  /** The last attempt's error ('' before any failure). */
  readonly lastError: string;
}

export interface MessageQueuedPayload {
  readonly channel: MessageChannel;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly purpose: string;
}

export type OutboxMessageEvent =
  | { type: 'message.queued'; payload: MessageQueuedPayload }
  | { type: 'message.attempt.failed'; payload: { attempt: number; error: string; nextAttemptAt: number; providerId: string } }
  | { type: 'message.delivered'; payload: { attempt: number; providerId: string; answer: string } }
  | { type: 'message.abandoned'; payload: { attempts: number; error: string } };

export type OutboxMessageEventType = OutboxMessageEvent['type'];

export const OUTBOX_TABLE = 'outbox_messages';

export const outboxMessageKind: AggregateKind<OutboxMessage, OutboxMessageEvent, 'message'> = {
  type: 'message',
  table: OUTBOX_TABLE,
  events: outboxMessageEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'message.queued':
        return { orgId: e.owner.id, ...e.payload, attempts: 0, nextAttemptAt: 0, lastError: '' };
      case 'message.attempt.failed':
        return state && { ...state, attempts: e.payload.attempt, nextAttemptAt: e.payload.nextAttemptAt, lastError: e.payload.error };
      case 'message.delivered':
      case 'message.abandoned':
        return undefined;
      default:
        return state;
    }
  },
};
