/**
 * The TOTP second factor of a human user (RFC 6238). The secret and the code checks come from
 * the edge (randomness and HMACs stay out of the actor); here the secret is sealed with the
 * node's master key before it is recorded, and every decision that needs the user's current
 * state is taken: which secret a code was checked against (a check against a replaced secret
 * records nothing), replay (a code of a time step at or before the last accepted one is
 * refused), and lockout after `maxOtpAttempts` failed checks (0: never). Recovery codes stand
 * in for a TOTP code once each; only their SHA-256 digests are recorded.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { alreadyExists, failedPrecondition, notFound } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import { effectiveMaxOtpAttempts, orgLockoutKind } from '../org-lockout.js';
import type { HumanTotp } from '../user.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface StartTotp extends UserCommand {
  /** The new secret in base32 (generated at the edge); recorded only sealed. */
  readonly secret: string;
}

/** Starts (or restarts, while unverified) a TOTP enrolment; 409 `user.totp.exists` once one is verified. */
export const startTotp: CommandHandler<StartTotp, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (record.state.totp?.verified === true) throw alreadyExists('user.totp.exists', 'the user already has a verified TOTP; remove it first');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.mfa.otp.added', payload: { sealedSecret: ctx.sealer.seal(c.secret) } })], reply: userReply(c.userId, record) };
  },
};

/**
 * Import (admin import `otpCode`): a secret that was verified elsewhere becomes the user's
 * verified TOTP at once (recorded as added + verified, no accepted step yet).
 */
export const importTotp: CommandHandler<StartTotp, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (record.state.totp?.verified === true) throw alreadyExists('user.totp.exists', 'the user already has a verified TOTP');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return {
      events: [emit({ type: 'user.human.mfa.otp.added', payload: { sealedSecret: ctx.sealer.seal(c.secret) } }), emit({ type: 'user.human.mfa.otp.verified', payload: { step: 0 } })],
      reply: userReply(c.userId, record),
    };
  },
};

export interface VerifyTotp extends UserCommand {
  /** The sealed secret the edge checked the code against. */
  readonly sealedSecret: string;
  /** The time step of the accepted code. */
  readonly step: number;
}

/** Marks the enrolment verified: the edge accepted a code of `step` for the current secret. */
export const verifyTotp: CommandHandler<VerifyTotp, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const totp = requireTotp(record.state.totp);
    if (totp.verified) throw failedPrecondition('user.totp.already_verified', 'the TOTP is already verified');
    if (totp.sealedSecret !== c.sealedSecret) throw failedPrecondition('user.totp.changed', 'the TOTP enrolment was restarted meanwhile');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.mfa.otp.verified', payload: { step: c.step } })], reply: userReply(c.userId, record) };
  },
};

/** Removes the TOTP (verified or not); 404 `user.totp.not_found` when there is none. */
export const removeTotp: CommandHandler<UserCommand, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    requireTotp(record.state.totp);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.mfa.otp.removed', payload: {} })], reply: userReply(c.userId, record) };
  },
};

export interface RecordOtpCheck extends UserCommand {
  /** The sealed secret the code was checked against. */
  readonly sealedSecret: string;
  /** The time step of the matching code; absent when the code matched no step of the window. */
  readonly step?: number;
  /** Instead of a TOTP code: the SHA-256 digest (base64url) of a presented recovery code. */
  readonly recoveryDigest?: string;
}

/** Recovery codes per set. */
export const RECOVERY_CODE_COUNT = 10;

export interface GenerateRecoveryCodes extends UserCommand {
  /** SHA-256 digests (base64url) of the new codes, generated at the edge and handed out once. */
  readonly digests: readonly string[];
}

/** A new set of recovery codes (replacing the previous one); the user must have a verified TOTP (400 `user.totp.not_verified`). */
export const generateRecoveryCodes: CommandHandler<GenerateRecoveryCodes, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (record.state.totp?.verified !== true) throw failedPrecondition('user.totp.not_verified', 'recovery codes need a verified TOTP');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.mfa.recovery.codes.generated', payload: { digests: [...c.digests] } })], reply: userReply(c.userId, record) };
  },
};

export type OtpCheckOutcome = 'valid' | 'invalid' | 'replayed' | 'stale' | 'locked';

export interface OtpCheckRecorded {
  readonly outcome: OtpCheckOutcome;
  /** True when this failure locked the user. */
  readonly lockedNow: boolean;
}

/**
 * Records a login's TOTP check: a matching code of a step after the last accepted one succeeds
 * (and becomes the last accepted step); a wrong or replayed code counts as a failed OTP check
 * and locks the user at `maxOtpAttempts` (the organization's own, else the instance's). A locked user, or a check against a secret that is no
 * longer the user's verified one, records nothing.
 */
export const recordOtpCheck: CommandHandler<RecordOtpCheck, OtpCheckRecorded> = {
  load: (c, ctx) => [...loadUser(c), ref(userSettingsKind, ctx.instanceId), ref(orgLockoutKind, c.orgId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    const reply = (outcome: OtpCheckOutcome, lockedNow = false) => () => ({ outcome, lockedNow });
    if (user.state !== 'active') return { events: [], reply: reply('locked') };
    if (user.totp === undefined || !user.totp.verified || user.totp.sealedSecret !== c.sealedSecret) return { events: [], reply: reply('stale') };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    if (c.recoveryDigest !== undefined && (user.recoveryCodes ?? []).includes(c.recoveryDigest)) {
      return { events: [emit({ type: 'user.human.mfa.recovery.code.used', payload: { digest: c.recoveryDigest } })], reply: reply('valid') };
    }
    if (c.step !== undefined && c.step > user.totp.lastStep) {
      return { events: [emit({ type: 'user.human.mfa.otp.check.succeeded', payload: { step: c.step } })], reply: reply('valid') };
    }
    const max = effectiveMaxOtpAttempts(userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record), loaded.get(orgLockoutKind, c.orgId).record);
    const locks = max > 0 && (user.failedOtpAttempts ?? 0) + 1 >= max;
    const events: DomainEvent[] = [emit({ type: 'user.human.mfa.otp.check.failed', payload: {} })];
    if (locks) events.push(emit({ type: 'user.locked', payload: {} }));
    return { events, reply: reply(c.step === undefined || c.recoveryDigest !== undefined ? 'invalid' : 'replayed', locks) };
  },
};

function requireTotp(totp: HumanTotp | undefined): HumanTotp {
  if (totp === undefined) throw notFound('user.totp.not_found', 'the user has no TOTP');
  return totp;
}
