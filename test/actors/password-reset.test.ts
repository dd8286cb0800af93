/**
 * Password reset and the outbox, as pure deciders and evolve (#14): the code's digest and the
 * queued message in one decision; a reset only with the pending, unexpired code, clearing it
 * (single use) and ending exactly the user's live sessions; outbox rows only while pending, a
 * late duplicate outcome a no-op; the provider's lastError set, kept for a repeat within a
 * minute, and cleared by a recovery.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../actors/kernel/ports.js';
import { userKind, type HumanUser, type User } from '../../actors/organization/user.js';
import type { AggregateRecord } from '../../actors/kernel/aggregate.js';
import { sessionKind, type Session } from '../../actors/organization/session.js';
import { outboxMessageKind, type OutboxMessage } from '../../actors/organization/outbox-message.js';
import { requestPasswordReset, resetPasswordWithCode } from '../../actors/organization/commands/password-reset.js';
import { recordMessageAttempt } from '../../actors/organization/commands/record-message-attempt.js';
import { recordSmtpProviderDelivery } from '../../actors/instance/commands/record-provider-delivery.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../../actors/instance/smtp-provider.js';
import { addHumanUser } from '../../actors/organization/commands/add-human-user.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { org, owner } from './user.fixture.js';
import { applyDecision } from './fold.fixture.js';

function human(overrides: Partial<HumanUser> = {}): AggregateRecord<User> {
  const added = addHumanUser.decide(
    given([org]),
    { userId: 'u1', orgId: 'o1', username: 'alice', givenName: 'A', familyName: 'S', nickname: '', preferredLanguage: 'en', gender: 'unspecified', email: { address: 'a@example.com', verified: true }, passwordHash: 'old', passwordChangeRequired: false },
    context(),
  );
  const row = applyDecision(userKind, 'u1', undefined, added)!;
  return { ...row, state: { ...(row.state as HumanUser), ...overrides } };
}

const session = (id: string, userId: string, expiresAt = NOW + 60_000) =>
  ({ kind: sessionKind, record: record<Session>(id, { orgId: 'o1', userId, tokenDigest: `digest-${id}`, expiresAt, userAgent: { userAgent: '', ip: '' }, userCheckedAt: 1, passwordCheckedAt: 1, patCheckedAt: 0, metadata: [] }, owner) });

const request = { orgId: 'o1', userId: 'u1', codeHash: 'H1', expiresAt: NOW + 900_000, messageId: 'm1', message: { subject: 'Reset', text: 'sealed:code 1', purpose: 'password.reset' } };

describe('requesting a reset', () => {
  it('records the code digest and queues the mail to the user in the same decision', () => {
    const decision = requestPasswordReset.decide(given([org, { kind: userKind, record: human() }]), request, context());
    expect(decision.events.map((e) => [e.aggregateType, e.type])).toEqual([
      ['user', 'user.human.password.code.added'],
      ['message', 'message.queued'],
    ]);
    expect(decision.events[0]!.payload).toEqual({ codeHash: 'H1', expiresAt: NOW + 900_000, channel: 'mail', messageId: 'm1' });
    expect(decision.events[1]!.payload).toMatchObject({ channel: 'mail', to: 'a@example.com', text: 'sealed:code 1' });
    const user = applyDecision(userKind, 'u1', human(), decision)!;
    expect((user.state as HumanUser).passwordReset).toEqual({ codeHash: 'H1', expiresAt: NOW + 900_000 });
    const message = applyDecision(outboxMessageKind, 'm1', undefined, decision)!;
    expect(message.state).toMatchObject({ orgId: 'o1', attempts: 0, nextAttemptAt: 0, lastError: '' });
  });

  it('refuses a user without email or an inactive one (control: the active user with email above)', () => {
    expect(codeOf(() => requestPasswordReset.decide(given([org, { kind: userKind, record: human({ email: { address: '', verified: false } }) }]), request, context()))).toBe('user.email.missing');
    expect(codeOf(() => requestPasswordReset.decide(given([org, { kind: userKind, record: human({ state: 'inactive' }) }]), request, context()))).toBe('user.not_active');
  });
});

describe('resetting with a code', () => {
  const pending = () => human({ passwordReset: { codeHash: 'H1', expiresAt: NOW + 1000 } });
  const reset = { orgId: 'o1', userId: 'u1', codeHash: 'H1', passwordHash: 'new', sessionIds: ['s1', 's2', 's3'] };
  const loaded = (user: AggregateRecord<User> = pending()) => given([org, { kind: userKind, record: user }, session('s1', 'u1'), session('s2', 'u-other'), session('s3', 'u1', NOW - 1)]);

  it("sets the password, spends the code and ends only the user's live sessions", () => {
    const decision = resetPasswordWithCode.decide(loaded(), reset, context());
    expect(decision.events.map((e) => `${e.type}:${e.aggregateId}`)).toEqual(['user.human.password.changed:u1', 'session.terminated:s1']);
    expect(decision.releases).toEqual([{ scope: 'session.token', value: 'digest-s1' }]);
    const after = applyDecision(userKind, 'u1', pending(), decision)!;
    expect((after.state as HumanUser).passwordReset).toBeUndefined();
    expect((after.state as HumanUser).passwordHash).toBe('new');
    // Single use: the same code on the row after the reset is refused.
    expect(codeOf(() => resetPasswordWithCode.decide(loaded(after), reset, context()))).toBe('user.password.code_invalid');
  });

  it('refuses a wrong and an expired code', () => {
    expect(codeOf(() => resetPasswordWithCode.decide(loaded(), { ...reset, codeHash: 'H2' }, context()))).toBe('user.password.code_invalid');
    expect(codeOf(() => resetPasswordWithCode.decide(loaded(), reset, context({ now: NOW + 1000 })))).toBe('user.password.code_expired');
    expect(codeOf(() => resetPasswordWithCode.decide(loaded(), reset, context({ now: NOW + 999 })))).toBeUndefined();
  });
});

describe('outbox messages', () => {
  const queued = (): OutboxMessage => ({ orgId: 'o1', channel: 'mail', to: 'a@example.com', subject: 'S', text: 'sealed:t', purpose: 'password.reset', attempts: 0, nextAttemptAt: 0, lastError: '' });
  const loaded = (state?: OutboxMessage) => given(state === undefined ? [] : [{ kind: outboxMessageKind, record: record('m1', state, owner) }]);

  it('records a failure with the next attempt, then removes the row once delivered', () => {
    const failed = recordMessageAttempt.decide(loaded(queued()), { orgId: 'o1', messageId: 'm1', outcome: { result: 'failed', providerId: '', error: '451', nextAttemptAt: NOW + 5000 } }, context());
    expect(failed.events[0]).toMatchObject({ type: 'message.attempt.failed', payload: { attempt: 1, nextAttemptAt: NOW + 5000 } });
    const row = applyDecision(outboxMessageKind, 'm1', record('m1', queued(), owner), failed)!;
    expect(row.state).toMatchObject({ attempts: 1, nextAttemptAt: NOW + 5000, lastError: '451' });
    const delivered = recordMessageAttempt.decide(loaded(row.state), { orgId: 'o1', messageId: 'm1', outcome: { result: 'delivered', providerId: 'p1', answer: '250 OK' } }, context());
    expect(delivered.events[0]).toMatchObject({ type: 'message.delivered', payload: { attempt: 2 } });
    expect(applyDecision(outboxMessageKind, 'm1', row, delivered)).toBeUndefined();
    // A late duplicate outcome for a delivered message records nothing.
    const late = recordMessageAttempt.decide(loaded(), { orgId: 'o1', messageId: 'm1', outcome: { result: 'delivered', providerId: 'p1', answer: '250 OK' } }, context());
    expect(late.events).toEqual([]);
  });
});

describe("a provider's last delivery error", () => {
  const mail: SmtpProvider = { description: '', host: 'smtp.example.com', port: 587, tlsMode: 'starttls', user: '', password: '', senderAddress: 'n@example.com', senderName: '', replyTo: '' };
  const instanceOwner = { type: 'instance', id: 'i1' } as const;
  const fold = (state: SmtpProvider, type: string, payload: unknown, at = NOW) =>
    SMTP_PROVIDERS.kind.evolve(state, { type, payload, createdAt: at } as unknown as StoredEvent)!;

  it('is set by a failure, kept for the same error within a minute, and cleared by a recovery', () => {
    const p = (state: SmtpProvider) => given([{ kind: SMTP_PROVIDERS.kind, record: record('p1', state, instanceOwner) }]);
    expect(recordSmtpProviderDelivery.decide(p(mail), { providerId: 'p1' }, context()).events).toEqual([]);
    const failed = recordSmtpProviderDelivery.decide(p(mail), { providerId: 'p1', error: '451 later' }, context());
    expect(failed.events[0]).toMatchObject({ type: 'instance.smtp.provider.delivery.failed', payload: { error: '451 later' } });
    const withError = fold(mail, 'instance.smtp.provider.delivery.failed', { error: '451 later' });
    expect(withError).toMatchObject({ lastError: { error: '451 later', at: NOW } });
    expect(recordSmtpProviderDelivery.decide(p(withError), { providerId: 'p1', error: '451 later' }, context({ now: NOW + 30_000 })).events).toEqual([]);
    expect(recordSmtpProviderDelivery.decide(p(withError), { providerId: 'p1', error: '451 later' }, context({ now: NOW + 61_000 })).events).toHaveLength(1);
    const recovered = recordSmtpProviderDelivery.decide(p(withError), { providerId: 'p1' }, context());
    expect(recovered.events[0]).toMatchObject({ type: 'instance.smtp.provider.delivery.recovered' });
    expect(fold(withError, 'instance.smtp.provider.delivery.recovered', {})).toEqual(mail);
  });
});
