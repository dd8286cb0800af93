/**
 * OTP by email / SMS set up during login, as pure deciders and evolve (#14): the enrolment code
 * goes only to a verified address / number and only when asked for (`enrol`), recorded as the
 * pending enrolment code with its message in one decision; the right, unexpired code adds the
 * factor (the event of AddOTPEmail / AddOTPSMS) and the check together, clearing the pending
 * code; a wrong or expired code counts as a failed OTP check and adds nothing; an address that
 * is no longer verified adds nothing (`stale`). Each refusal beside its control.
 */
import { describe, expect, it } from 'vitest';
import type { AggregateRecord } from '../../actors/kernel/aggregate.js';
import { addHumanUser } from '../../actors/organization/commands/add-human-user.js';
import { recordOtpCodeCheck, sendOtpCode } from '../../actors/organization/commands/otp-message.js';
import { userKind, type HumanUser, type User } from '../../actors/organization/user.js';
import { codeOf, context, given, NOW } from './decide.fixture.js';
import { applyDecision } from './fold.fixture.js';
import { org } from './user.fixture.js';

function human(overrides: Partial<HumanUser> = {}): AggregateRecord<User> {
  const added = addHumanUser.decide(
    given([org]),
    { userId: 'u1', orgId: 'o1', username: 'alice', givenName: 'A', familyName: 'S', nickname: '', preferredLanguage: 'en', gender: 'unspecified', email: { address: 'a@example.com', verified: true }, passwordHash: 'h', passwordChangeRequired: false },
    context(),
  );
  const row = applyDecision(userKind, 'u1', undefined, added)!;
  return { ...row, state: { ...(row.state as HumanUser), ...overrides } };
}

const send = { orgId: 'o1', userId: 'u1', channel: 'email' as const, codeHash: 'H1', expiresAt: NOW + 1000, messageId: 'm1', message: { subject: 'Code', text: 'sealed:code', purpose: 'otp.email' } };
const check = { orgId: 'o1', userId: 'u1', channel: 'email' as const, codeHash: 'H1', enrol: true };
const world = (user: AggregateRecord<User>) => given([org, { kind: userKind, record: user }]);
const stateAfter = (user: AggregateRecord<User>, decision: Parameters<typeof applyDecision>[3]) => applyDecision(userKind, 'u1', user, decision)!.state as HumanUser;

describe('sending the enrolment code', () => {
  it('records the pending enrolment code and queues the message to the verified address in one decision', () => {
    const decision = sendOtpCode.decide(world(human()), { ...send, enrol: true }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.human.otp.enrolment.code.added', 'message.queued']);
    expect(decision.events[1]!.payload).toMatchObject({ channel: 'mail', to: 'a@example.com' });
    const after = stateAfter(human(), decision);
    expect(after.otpEnrolment).toEqual({ channel: 'email', codeHash: 'H1', expiresAt: NOW + 1000 });
    expect(after.otpEmail, 'not a factor yet').toBeUndefined();
  });

  it('refuses without `enrol` (the ordinary login code needs the factor) and to an unverified address; controls above', () => {
    expect(codeOf(() => sendOtpCode.decide(world(human()), send, context()))).toBe('user.otp_email.not_found');
    const unverified = human({ email: { address: 'a@example.com', verified: false } });
    expect(codeOf(() => sendOtpCode.decide(world(unverified), { ...send, enrol: true }, context()))).toBe('user.email.not_verified');
  });
});

describe('checking the enrolment code', () => {
  const pending = (overrides: Partial<HumanUser> = {}) => human({ otpEnrolment: { channel: 'email', codeHash: 'H1', expiresAt: NOW + 1000 }, ...overrides });

  it('the right, unexpired code adds the factor and the check in one decision and clears the pending code', () => {
    const decision = recordOtpCodeCheck.decide(world(pending()), check, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.human.otp.email.added', 'user.human.otp.email.check.succeeded']);
    const after = stateAfter(pending(), decision);
    expect(after.otpEmail).toEqual({});
    expect(after.otpEnrolment).toBeUndefined();
    expect(after.failedOtpAttempts ?? 0).toBe(0);
  });

  it('a wrong code or an expired one counts as a failed check and adds nothing (control: the right one above)', () => {
    for (const [user, command] of [
      [pending(), { ...check, codeHash: 'H2' }],
      [pending({ otpEnrolment: { channel: 'email', codeHash: 'H1', expiresAt: NOW } }), check],
      [pending({ otpEnrolment: { channel: 'sms', codeHash: 'H1', expiresAt: NOW + 1000 } }), check],
    ] as const) {
      const decision = recordOtpCodeCheck.decide(world(user), command, context());
      expect(decision.events.map((e) => e.type)).toEqual(['user.human.otp.email.check.failed']);
      const after = stateAfter(user, decision);
      expect(after.otpEmail).toBeUndefined();
      expect(after.failedOtpAttempts).toBe(1);
    }
  });

  it('adds nothing for an address no longer verified, nor without `enrol` (stale; control: the right code above)', () => {
    const unverified = pending({ email: { address: 'a@example.com', verified: false } });
    const stale = recordOtpCodeCheck.decide(world(unverified), check, context());
    expect(stale.events).toEqual([]);
    expect(recordOtpCodeCheck.decide(world(pending()), { ...check, enrol: false }, context()).events).toEqual([]);
  });
});
