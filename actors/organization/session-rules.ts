/**
 * Rules shared by the session commands: the checks a session records and how they are proven.
 * Passwords are verified at the edge (argon2 is slow and async); the command receives the hash
 * the password was verified against and refuses if it was replaced meanwhile. PATs are
 * verified here, by digest, against the machine user's live tokens.
 */
import type { AggregateRecord } from '../kernel/aggregate.js';
import { ref, type AggregateRef, type CommandContext, type LoadedSet, type Outcome } from '../kernel/command.js';
import { failedPrecondition, notFound } from '../kernel/errors.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../kernel/owner.js';
import { emitter, type Emit, type Emitted } from '../kernel/events.js';
import { orgKind } from './org.js';
import { isSessionLive, sessionKind, type Session, type SessionEvent } from './session.js';
import { userKind, type User } from './user.js';

/** Factors proven at the edge or to be proven here. */
export interface SessionChecks {
  /** The password was verified against this stored hash (the user's current one, or the check fails). */
  readonly passwordHash?: string;
  /** SHA-256 digest (base64url) of a personal access token presented for a machine user. */
  readonly patDigest?: string;
  /** The edge completed a login through this IDP with an external identity linked to the (human) user. */
  readonly idpId?: string;
  /**
   * The edge accepted the human user's TOTP code and recorded it on the user
   * (`user.human.mfa.otp.check.succeeded`); the user must have a verified TOTP.
   */
  readonly totpChecked?: boolean;
  /**
   * The edge accepted a login code sent by email / SMS and recorded it on the user
   * (`user.human.otp.email|sms.check.succeeded`); the user must have that factor.
   */
  readonly otpMessageChecked?: 'email' | 'sms';
  /**
   * The edge verified an assertion of this passkey of the (human) user and recorded it
   * (`user.human.passkey.used`); `userVerified`: the authenticator verified the user;
   * `multiFactor: false`: the login policy does not count it as two factors (multiFactors).
   */
  readonly passkey?: { readonly id: string; readonly userVerified: boolean; readonly multiFactor?: boolean };
}

/** What a session command knows about the session it targets. */
export interface SessionCommand {
  readonly sessionId: string;
  /** The organization of the session's user (the actor's). */
  readonly orgId: string;
}

export function loadSession(c: SessionCommand & { readonly userId?: string }): AggregateRef[] {
  const refs = [ref(sessionKind, c.sessionId), ref(orgKind, c.orgId)];
  if (c.userId !== undefined) refs.push(ref(userKind, c.userId));
  return refs;
}

/** The live session of the organization, or 404 `session.not_found` (absent, expired, terminated, other org). */
export function requireSession(loaded: LoadedSet, c: SessionCommand, now: number): AggregateRecord<Session> {
  const record = loaded.get(sessionKind, c.sessionId).record;
  if (!isSessionLive(record, now) || record.state.orgId !== c.orgId || loaded.get(orgKind, c.orgId).record === undefined) {
    throw notFound('session.not_found', 'session not found');
  }
  return record;
}

/** The session's user: it must exist in the organization and be active. */
export function requireActiveUser(loaded: LoadedSet, orgId: string, userId: string): AggregateRecord<User> {
  const user = loaded.get(userKind, userId).record;
  if (user === undefined || user.state.orgId !== orgId || loaded.get(orgKind, orgId).record === undefined) {
    throw notFound('user.not_found', 'user not found');
  }
  if (user.state.state === 'locked') throw failedPrecondition('user.locked', 'the user is locked');
  if (user.state.state === 'inactive') throw failedPrecondition('user.inactive', 'the user is inactive');
  return user;
}

/** Builds events of one session's stream. */
export function createSessionEvents(sessionId: string, orgId: string, ctx: CommandContext): SessionEmit {
  return emitter(sessionKind, sessionId, orgOwner(orgId), ctx.creator);
}

/** Builds events of one session's stream. */
export type SessionEmit = Emit<SessionEvent, 'session'>;

/**
 * The events of the checks: `session.password.checked` for a human whose password was verified
 * against the current hash, `session.pat.checked` for a machine user's live token. Throws
 * `user.not_human` / `user.not_machine` for the wrong kind of user, `session.password_invalid`
 * / `session.token_invalid` when the factor does not hold.
 */
export function checkEvents(
  user: AggregateRecord<User>,
  checks: SessionChecks,
  emit: SessionEmit,
  now: number,
): Emitted<SessionEvent, 'session'>[] {
  const events: Emitted<SessionEvent, 'session'>[] = [];
  if (checks.passwordHash !== undefined) {
    if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'a password check is only available for human users');
    if (user.state.passwordHash === '' || user.state.passwordHash !== checks.passwordHash) {
      throw failedPrecondition('session.password_invalid', 'the password is invalid');
    }
    events.push(emit({ type: 'session.password.checked', payload: {} }));
  }
  if (checks.patDigest !== undefined) {
    if (user.state.type !== 'machine') throw failedPrecondition('user.not_machine', 'a token check is only available for machine users');
    const token = user.state.tokens.find((t) => t.digest === checks.patDigest && t.expiresAt > now);
    if (token === undefined) throw failedPrecondition('session.token_invalid', 'the personal access token is invalid or expired');
    events.push(emit({ type: 'session.pat.checked', payload: { tokenId: token.id } }));
  }
  if (checks.idpId !== undefined) {
    if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'an external login is only available for human users');
    // Only a user linked to the IDP can have logged in through it.
    if (!(user.state.idpLinks ?? []).some((l) => l.idpId === checks.idpId)) throw failedPrecondition('session.idp_not_linked', 'the user has no link to the IDP');
    events.push(emit({ type: 'session.idp.checked', payload: { idpId: checks.idpId } }));
  }
  if (checks.totpChecked === true) {
    if (user.state.type !== 'human' || user.state.totp?.verified !== true) throw failedPrecondition('session.totp_not_enrolled', 'the user has no verified TOTP');
    events.push(emit({ type: 'session.totp.checked', payload: {} }));
  }
  if (checks.otpMessageChecked !== undefined) {
    const human = user.state.type === 'human' ? user.state : undefined;
    const enabled = checks.otpMessageChecked === 'email' ? human?.otpEmail : human?.otpSms;
    if (enabled === undefined) throw failedPrecondition('session.otp_not_enabled', `the user has no OTP by ${checks.otpMessageChecked}`);
    events.push(emit({ type: checks.otpMessageChecked === 'email' ? 'session.otp.email.checked' : 'session.otp.sms.checked', payload: {} }));
  }
  if (checks.passkey !== undefined) {
    if (user.state.type !== 'human' || !(user.state.passkeys ?? []).some((p) => p.id === checks.passkey?.id)) {
      throw failedPrecondition('session.passkey_not_found', 'the user has no such passkey');
    }
    events.push(emit({ type: 'session.webAuthN.checked', payload: { passkeyId: checks.passkey.id, userVerified: checks.passkey.userVerified, ...(checks.passkey.multiFactor === undefined ? {} : { multiFactor: checks.passkey.multiFactor }) } }));
  }
  return events;
}

/** Only the changed entries of a metadata patch (empty value: remove). */
export function metadataChanges(current: Session['metadata'], patch: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const [key, value] of Object.entries(patch ?? {})) {
    const existing = current.find((m) => m.key === key)?.value;
    if (value === '' ? existing !== undefined : existing !== value) changes[key] = value;
  }
  return changes;
}

export function sessionReply(sessionId: string, orgId: string, record: AggregateRecord<Session> | undefined): (outcome: Outcome) => ResourceDetails {
  return (outcome) => detailsAfter(outcome, { id: sessionId, record, owner: orgOwner(orgId) });
}
