/**
 * Records the outcome of one delivery attempt of an outbox message (src/delivery/outbox.ts).
 * A message already delivered or abandoned (no row) is a no-op answering `false`, so a late
 * duplicate outcome changes nothing.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { emitter } from '../../kernel/events.js';
import { outboxMessageKind } from '../outbox-message.js';

export type MessageAttemptOutcome =
  | { readonly result: 'delivered'; readonly providerId: string; readonly answer: string }
  | { readonly result: 'failed'; readonly providerId: string; readonly error: string; readonly nextAttemptAt: number }
  | { readonly result: 'abandoned'; readonly error: string };

export interface RecordMessageAttempt {
  readonly orgId: string;
  readonly messageId: string;
  readonly outcome: MessageAttemptOutcome;
}

export const recordMessageAttempt: CommandHandler<RecordMessageAttempt, boolean> = {
  load: (c) => [ref(outboxMessageKind, c.messageId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(outboxMessageKind, c.messageId).record;
    if (record === undefined) return { events: [], reply: () => false };
    const attempt = record.state.attempts + 1;
    const emit = emitter(outboxMessageKind, c.messageId, record.meta.owner, ctx.creator);
    const o = c.outcome;
    const event =
      o.result === 'delivered'
        ? emit({ type: 'message.delivered', payload: { attempt, providerId: o.providerId, answer: o.answer } })
        : o.result === 'failed'
          ? emit({ type: 'message.attempt.failed', payload: { attempt, error: o.error, nextAttemptAt: o.nextAttemptAt, providerId: o.providerId } })
          : emit({ type: 'message.abandoned', payload: { attempts: attempt, error: o.error } });
    return { events: [event], reply: () => true };
  },
};
