/**
 * OTP by email and by SMS as second factors of a human user (issue 14). Adding one needs the
 * verified address / number it sends to. A login code works like the password reset code
 * (password-reset.ts): the edge makes it, here only its digest and expiry are recorded on the
 * user and the message carrying it is queued in the SAME append (the durable outbox); a newer
 * code replaces the pending one. A login's check of a code: the pending, unexpired code of that
 * channel succeeds once (it is cleared); anything else — a wrong, expired, replaced or already
 * used code — counts as a failed OTP check and locks the user at the instance's
 * `maxOtpAttempts` (0: never), like a wrong TOTP code.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { alreadyExists, failedPrecondition, notFound } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { emitter } from '../../kernel/events.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import { outboxMessageKind, type MessageQueuedPayload } from '../outbox-message.js';
import type { HumanUser } from '../user.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';
import { sameDigest } from './password-reset.js';
import type { OtpCheckRecorded } from './totp.js';

/** The channel a login code travels by. */
export type OtpChannel = 'email' | 'sms';

export interface OtpChannelCommand extends UserCommand {
  readonly channel: OtpChannel;
}

function enabled(user: HumanUser, channel: OtpChannel) {
  return channel === 'email' ? user.otpEmail : user.otpSms;
}

/** Enables OTP by email / SMS; 400 `user.email.not_verified` / `user.phone.not_verified`, 409 when already on. */
export const addOtpMessage: CommandHandler<OtpChannelCommand, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    if (c.channel === 'email' && (user.email.address === '' || !user.email.verified)) {
      throw failedPrecondition('user.email.not_verified', 'OTP by email needs a verified email address: verify the user\'s email first', {
        violations: [{ field: 'email', description: 'the user has no verified email address' }],
      });
    }
    if (c.channel === 'sms' && (user.phone.number === '' || !user.phone.verified)) {
      throw failedPrecondition('user.phone.not_verified', 'OTP by SMS needs a verified phone number: verify the user\'s phone first', {
        violations: [{ field: 'phone', description: 'the user has no verified phone number' }],
      });
    }
    if (enabled(user, c.channel) !== undefined) {
      throw alreadyExists(c.channel === 'email' ? 'user.otp_email.exists' : 'user.otp_sms.exists', `the user already has OTP by ${c.channel}`);
    }
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const type = c.channel === 'email' ? 'user.human.otp.email.added' : 'user.human.otp.sms.added';
    return { events: [emit({ type, payload: {} })], reply: userReply(c.userId, record) };
  },
};

/** Disables OTP by email / SMS (and drops its pending code); 404 when it is off. */
export const removeOtpMessage: CommandHandler<OtpChannelCommand, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (enabled(record.state, c.channel) === undefined) {
      throw notFound(c.channel === 'email' ? 'user.otp_email.not_found' : 'user.otp_sms.not_found', `the user has no OTP by ${c.channel}`);
    }
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const type = c.channel === 'email' ? 'user.human.otp.email.removed' : 'user.human.otp.sms.removed';
    return { events: [emit({ type, payload: {} })], reply: userReply(c.userId, record) };
  },
};

export interface SendOtpCode extends OtpChannelCommand {
  /** SHA-256 (base64url) of the code bound to the user; the code only travels in the sealed message. */
  readonly codeHash: string;
  readonly expiresAt: number;
  readonly messageId: string;
  /** The message; `to` (the user's address or number) and `channel` are filled in here. */
  readonly message: Omit<MessageQueuedPayload, 'to' | 'channel'>;
  /**
   * Enrolment during login: the user need not have the factor yet; the code is then recorded as
   * the pending enrolment (`user.human.otp.enrolment.code.added`), proving it adds the factor.
   */
  readonly enrol?: boolean;
}

/**
 * Records a new login code and queues its message; 400 `user.not_active` / `user.otp_*.not_found`,
 * and `user.email.not_verified` / `user.phone.not_verified` when the address changed since the
 * factor was added and is not verified (the factor stays required: the user picks another one).
 * With `enrol` and the factor not (yet) on: the code to set it up, to the verified address / number.
 */
export const sendOtpCode: CommandHandler<SendOtpCode, { readonly to: string }> = {
  load: (c) => [...loadUser(c), ref(outboxMessageKind, c.messageId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    if (user.state !== 'active') throw failedPrecondition('user.not_active', 'the user is not active');
    const enrolling = enabled(user, c.channel) === undefined;
    if (enrolling && c.enrol !== true) {
      throw failedPrecondition(c.channel === 'email' ? 'user.otp_email.not_found' : 'user.otp_sms.not_found', `the user has no OTP by ${c.channel}`);
    }
    const contact = c.channel === 'email' ? { to: user.email.address, verified: user.email.verified } : { to: user.phone.number, verified: user.phone.verified };
    const to = contact.to;
    if (to === '') throw failedPrecondition(c.channel === 'email' ? 'user.email.missing' : 'user.phone_missing', `the user has nothing to send the ${c.channel} code to`);
    // The address may have changed since the factor was added: a code goes only where the user proved to be.
    if (!contact.verified) {
      throw failedPrecondition(
        c.channel === 'email' ? 'user.email.not_verified' : 'user.phone.not_verified',
        `the user's ${c.channel === 'email' ? 'email address' : 'phone number'} changed and is not verified: no code is sent to it`,
      );
    }
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const queued: MessageQueuedPayload = { ...c.message, channel: c.channel === 'email' ? 'mail' : 'sms', to };
    const code = { codeHash: c.codeHash, expiresAt: c.expiresAt, messageId: c.messageId };
    const recorded: DomainEvent = enrolling
      ? emit({ type: 'user.human.otp.enrolment.code.added', payload: { ...code, channel: c.channel } })
      : emit(c.channel === 'email' ? { type: 'user.human.otp.email.code.added', payload: code } : { type: 'user.human.otp.sms.code.added', payload: code });
    const events: DomainEvent[] = [
      recorded,
      emitter(outboxMessageKind, c.messageId, record.meta.owner, ctx.creator)({ type: 'message.queued', payload: queued }),
    ];
    return { events, reply: () => ({ to }) };
  },
};

export interface RecordOtpCodeCheck extends OtpChannelCommand {
  /** The digest of the presented code (same binding as the sent one). */
  readonly codeHash: string;
  /** Enrolment during login: with the factor not (yet) on, the code is checked against the pending enrolment code. */
  readonly enrol?: boolean;
}

/**
 * A login's check of a code sent by email / SMS: `valid` once (the code is cleared), `invalid`
 * for a wrong or used code, `expired` past its expiry — both counted as a failed OTP check (and
 * `user.locked` at `maxOtpAttempts`); `locked` for a user who is not active, `stale` when the
 * factor is off (nothing recorded).
 * With `enrol` and the factor off: the pending enrolment code of that channel instead; `valid`
 * adds the factor in the same append (`user.human.otp.email|sms.added`, the event of
 * AddOTPEmail / AddOTPSMS, then the check), so the session can hold the check; `stale` when the
 * address / number is no longer verified.
 */
export const recordOtpCodeCheck: CommandHandler<RecordOtpCodeCheck, OtpCheckRecorded & { readonly expired: boolean }> = {
  load: (c, ctx) => [...loadUser(c), ref(userSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    const factor = enabled(user, c.channel);
    if (user.state !== 'active') return { events: [], reply: () => ({ outcome: 'locked', lockedNow: false, expired: false }) };
    const enrolling = factor === undefined && c.enrol === true;
    const verified = c.channel === 'email' ? user.email.address !== '' && user.email.verified : user.phone.number !== '' && user.phone.verified;
    if (factor === undefined && (!enrolling || !verified)) return { events: [], reply: () => ({ outcome: 'stale', lockedNow: false, expired: false }) };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const pending = enrolling ? (user.otpEnrolment?.channel === c.channel ? user.otpEnrolment : undefined) : factor?.code;
    const matches = pending !== undefined && sameDigest(pending.codeHash, c.codeHash);
    if (matches && pending.expiresAt > ctx.now) {
      const type = c.channel === 'email' ? 'user.human.otp.email.check.succeeded' : 'user.human.otp.sms.check.succeeded';
      const added: DomainEvent[] = enrolling ? [emit({ type: c.channel === 'email' ? 'user.human.otp.email.added' : 'user.human.otp.sms.added', payload: {} })] : [];
      return { events: [...added, emit({ type, payload: {} })], reply: () => ({ outcome: 'valid', lockedNow: false, expired: false }) };
    }
    const max = userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record).maxOtpAttempts;
    const locks = max > 0 && (user.failedOtpAttempts ?? 0) + 1 >= max;
    const failed = c.channel === 'email' ? 'user.human.otp.email.check.failed' : 'user.human.otp.sms.check.failed';
    const events: DomainEvent[] = [emit({ type: failed, payload: {} })];
    if (locks) events.push(emit({ type: 'user.locked', payload: {} }));
    return { events, reply: () => ({ outcome: 'invalid', lockedNow: locks, expired: matches }) };
  },
};
