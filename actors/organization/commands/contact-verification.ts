/**
 * Email and phone verification by a code (issue 14), on the machinery of the password reset:
 * `sendContactCode` records the code's digest on the user and queues the message carrying it
 * (mail or SMS) in the same append (the durable outbox, outbox-message.ts); `verifyContactCode`
 * checks the digest and expiry and marks the address verified, which clears the code (single
 * use). The digest covers the user and the address, and a change of the address clears the
 * pending code, so a code never verifies another address.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { aborted, failedPrecondition, invalidArgument } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { emitter } from '../../kernel/events.js';
import { outboxMessageKind, type MessageQueuedPayload } from '../outbox-message.js';
import type { HumanUser, PendingCode } from '../user.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';
import { sameDigest } from './password-reset.js';

export type ContactChannel = 'email' | 'phone';

export interface SendContactCode extends UserCommand {
  readonly channel: ContactChannel;
  /** The address the edge bound the digest to; refused when the user's is another by now. */
  readonly address: string;
  /** SHA-256 (base64url) of the code; the code itself only travels in the sealed message. */
  readonly codeHash: string;
  readonly expiresAt: number;
  readonly messageId: string;
  /** The message; `to` and `channel` are filled in here. */
  readonly message: Omit<MessageQueuedPayload, 'to' | 'channel'>;
}

export interface VerifyContactCode extends UserCommand {
  readonly channel: ContactChannel;
  readonly address: string;
  readonly codeHash: string;
}

interface Contact {
  readonly address: string;
  readonly verified: boolean;
  readonly pending: PendingCode | undefined;
}

function contactOf(user: HumanUser, channel: ContactChannel): Contact {
  return channel === 'email'
    ? { address: user.email.address, verified: user.email.verified, pending: user.emailCode }
    : { address: user.phone.number, verified: user.phone.verified, pending: user.phoneCode };
}

export const sendContactCode: CommandHandler<SendContactCode, ResourceDetails> = {
  load: (c) => [...loadUser(c), ref(outboxMessageKind, c.messageId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const contact = contactOf(record.state, c.channel);
    if (contact.address === '') throw failedPrecondition(`user.${c.channel}_missing`, `the user has no ${c.channel}`);
    if (contact.address !== c.address) throw aborted(`user.${c.channel}.changed_meanwhile`, `the ${c.channel} changed meanwhile; try again`);
    if (contact.verified) throw failedPrecondition(`user.${c.channel}.already_verified`, `the ${c.channel} is verified already`);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const code = { codeHash: c.codeHash, expiresAt: c.expiresAt, messageId: c.messageId };
    const queued: MessageQueuedPayload = { ...c.message, channel: c.channel === 'email' ? 'mail' : 'sms', to: contact.address };
    const events: DomainEvent[] = [
      c.channel === 'email' ? emit({ type: 'user.human.email.code.added', payload: code }) : emit({ type: 'user.human.phone.code.added', payload: code }),
      emitter(outboxMessageKind, c.messageId, record.meta.owner, ctx.creator)({ type: 'message.queued', payload: queued }),
    ];
    return { events, reply: userReply(c.userId, record) };
  },
};

export const verifyContactCode: CommandHandler<VerifyContactCode, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const contact = contactOf(record.state, c.channel);
    const field = { violations: [{ field: 'verificationCode', description: 'invalid or expired code' }] };
    const invalid = () => invalidArgument(`user.${c.channel}.code_invalid`, 'the code is invalid or was already used', field);
    if (contact.verified && contact.address === c.address) throw failedPrecondition(`user.${c.channel}.already_verified`, `the ${c.channel} is verified already`);
    if (contact.pending === undefined || contact.address !== c.address) throw invalid();
    if (!sameDigest(contact.pending.codeHash, c.codeHash)) throw invalid();
    if (contact.pending.expiresAt <= ctx.now) throw invalidArgument(`user.${c.channel}.code_expired`, 'the code has expired; request a new one', field);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const event = c.channel === 'email' ? emit({ type: 'user.human.email.verified', payload: {} }) : emit({ type: 'user.human.phone.verified', payload: {} });
    return { events: [event], reply: userReply(c.userId, record) };
  },
};
