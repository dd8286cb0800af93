/**
 * Email / phone verification by a code, as pure deciders and evolve (#14): the code's digest and
 * the queued message (mail or SMS) in one decision; verification only with the pending,
 * unexpired code of the current address, which it spends (single use); a changed address
 * clears the pending code; an address changed between reading and sending is refused.
 */
import { describe, expect, it } from 'vitest';
import { userKind, type HumanUser, type User } from '../../actors/organization/user.js';
import type { AggregateRecord } from '../../actors/kernel/aggregate.js';
import { sendContactCode, verifyContactCode } from '../../actors/organization/commands/contact-verification.js';
import { patchUser } from '../../actors/organization/commands/patch-user.js';
import { addHumanUser } from '../../actors/organization/commands/add-human-user.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { org, owner } from './user.fixture.js';
import { applyDecision } from './fold.fixture.js';

function human(overrides: Partial<HumanUser> = {}): AggregateRecord<User> {
  const added = addHumanUser.decide(
    given([org]),
    { userId: 'u1', orgId: 'o1', username: 'alice', givenName: 'A', familyName: 'S', nickname: '', preferredLanguage: 'en', gender: 'unspecified', email: { address: 'a@example.com', verified: false }, passwordHash: 'h', passwordChangeRequired: false },
    context(),
  );
  const row = applyDecision(userKind, 'u1', undefined, added)!;
  return { ...row, state: { ...(row.state as HumanUser), phone: { number: '+41790000000', verified: false }, ...overrides } };
}

const loaded = (user: AggregateRecord<User>) => given([org, { kind: userKind, record: user }]);
const send = { orgId: 'o1', userId: 'u1', channel: 'email' as const, address: 'a@example.com', codeHash: 'H1', expiresAt: NOW + 1000, messageId: 'm1', message: { subject: 'Verify', text: 'sealed', purpose: 'email.verification' } };
const verify = { orgId: 'o1', userId: 'u1', channel: 'email' as const, address: 'a@example.com', codeHash: 'H1' };

describe('sending a verification code', () => {
  it('records the digest and queues the mail or the SMS to the current address in one decision', () => {
    const mail = sendContactCode.decide(loaded(human()), send, context());
    expect(mail.events.map((e) => e.type)).toEqual(['user.human.email.code.added', 'message.queued']);
    expect(mail.events[1]!.payload).toMatchObject({ channel: 'mail', to: 'a@example.com' });
    expect((applyDecision(userKind, 'u1', human(), mail)!.state as HumanUser).emailCode).toEqual({ codeHash: 'H1', expiresAt: NOW + 1000 });
    const sms = sendContactCode.decide(loaded(human()), { ...send, channel: 'phone', address: '+41790000000' }, context());
    expect(sms.events.map((e) => e.type)).toEqual(['user.human.phone.code.added', 'message.queued']);
    expect(sms.events[1]!.payload).toMatchObject({ channel: 'sms', to: '+41790000000' });
  });

  it('refuses a verified address, a missing one and one changed meanwhile (control: the send above)', () => {
    expect(codeOf(() => sendContactCode.decide(loaded(human({ email: { address: 'a@example.com', verified: true } })), send, context()))).toBe('user.email.already_verified');
    expect(codeOf(() => sendContactCode.decide(loaded(human({ phone: { number: '', verified: false } })), { ...send, channel: 'phone', address: '' }, context()))).toBe('user.phone_missing');
    expect(codeOf(() => sendContactCode.decide(loaded(human()), { ...send, address: 'old@example.com' }, context()))).toBe('user.email.changed_meanwhile');
  });
});

describe('verifying with a code', () => {
  const pending = (overrides: Partial<HumanUser> = {}) => human({ emailCode: { codeHash: 'H1', expiresAt: NOW + 1000 }, ...overrides });

  it('marks the address verified with the pending code and spends it', () => {
    const decision = verifyContactCode.decide(loaded(pending()), verify, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.human.email.verified']);
    const after = applyDecision(userKind, 'u1', pending(), decision)!.state as HumanUser;
    expect(after.email).toEqual({ address: 'a@example.com', verified: true });
    expect(after.emailCode).toBeUndefined();
  });

  it('refuses a wrong code, an expired one, a used one and one for another address', () => {
    expect(codeOf(() => verifyContactCode.decide(loaded(pending()), { ...verify, codeHash: 'H2' }, context()))).toBe('user.email.code_invalid');
    expect(codeOf(() => verifyContactCode.decide(loaded(pending({ emailCode: { codeHash: 'H1', expiresAt: NOW } })), verify, context()))).toBe('user.email.code_expired');
    expect(codeOf(() => verifyContactCode.decide(loaded(human()), verify, context()))).toBe('user.email.code_invalid');
    expect(codeOf(() => verifyContactCode.decide(loaded(pending()), { ...verify, address: 'other@example.com' }, context()))).toBe('user.email.code_invalid');
    // control: the right code an instant before expiry
    expect(verifyContactCode.decide(loaded(pending({ emailCode: { codeHash: 'H1', expiresAt: NOW + 1 } })), verify, context()).events).toHaveLength(1);
  });

  it('an email change clears the pending email code and keeps the phone code', () => {
    const user = pending({ phoneCode: { codeHash: 'P1', expiresAt: NOW + 1000 } });
    const changed = patchUser.decide(given([org, { kind: userKind, record: user }]), { orgId: 'o1', userId: 'u1', email: { address: 'new@example.com' } }, context());
    const after = applyDecision(userKind, 'u1', user, changed)!.state as HumanUser;
    expect(after.email).toEqual({ address: 'new@example.com', verified: false });
    expect(after.emailCode).toBeUndefined();
    expect(after.phoneCode).toEqual({ codeHash: 'P1', expiresAt: NOW + 1000 });
  });
});
