/** SMTP/SMS provider deciders and evolve: given state, when command, then events / error code. */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../actors/kernel/ports.js';
import { createSmsProvider, createSmtpProvider } from '../../actors/instance/commands/create-provider.js';
import { patchSmsProvider, patchSmtpProvider } from '../../actors/instance/commands/patch-provider.js';
import { removeSmtpProvider } from '../../actors/instance/commands/remove-provider.js';
import { setSmtpProviderActivation } from '../../actors/instance/commands/set-provider-activation.js';
import { SMS_PROVIDERS, type SmsProvider } from '../../actors/instance/sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../../actors/instance/smtp-provider.js';
import { codeOf, context, given, noOutcome, record } from './decide.fixture.js';

const owner = { type: 'instance', id: 'i1' } as const;

const mail = (): SmtpProvider => ({
  description: 'Mail',
  host: 'smtp.example.com',
  port: 587,
  tlsMode: 'starttls',
  user: 'u',
  password: 'sealed:pw',
  senderAddress: 'no@example.com',
  senderName: '',
  replyTo: '',
});

const smtp = (id: string) => ({ kind: SMTP_PROVIDERS.kind, record: record(id, mail(), owner) });
const activation = (activeId: string) => ({ kind: SMTP_PROVIDERS.activation, record: record('i1', { activeId }, owner, 7) });

describe('provider deciders', () => {
  it('create seals the secrets and refuses an existing id', () => {
    const decision = createSmtpProvider.decide(given([]), { providerId: 'p1', fields: { ...mail(), password: 'pw' } }, context());
    expect(decision.events).toHaveLength(1);
    expect(decision.events[0]).toMatchObject({ type: 'instance.smtp.provider.added', aggregateType: 'smtp_provider', aggregateId: 'p1' });
    expect(decision.events[0]!.payload).toMatchObject({ password: 'sealed:pw', host: 'smtp.example.com' });
    const none = createSmtpProvider.decide(given([]), { providerId: 'p1', fields: { ...mail(), password: '' } }, context());
    expect((none.events[0]!.payload as SmtpProvider).password).toBe('');
    expect(codeOf(() => createSmtpProvider.decide(given([smtp('p1')]), { providerId: 'p1', fields: mail() }, context()))).toBe('smtp_provider.exists');
    const sms = createSmsProvider.decide(given([]), { providerId: 's1', fields: { description: '', providerType: 'twilio', url: '', signingKey: '', accountSid: 'AC', authToken: 'tok', senderNumber: '+1', baseUrl: '' } }, context());
    expect(sms.events[0]!.payload).toMatchObject({ authToken: 'sealed:tok', signingKey: '' });
  });

  it('patch records only changed fields; the same password is no change; the SMS type cannot change', () => {
    const loaded = given([smtp('p1')]);
    expect(patchSmtpProvider.decide(loaded, { providerId: 'p1', changes: { password: 'pw', host: 'smtp.example.com' } }, context()).events).toEqual([]);
    const changed = patchSmtpProvider.decide(loaded, { providerId: 'p1', changes: { password: 'new', port: 465 } }, context());
    expect(changed.events[0]!.payload).toEqual({ password: 'sealed:new', port: 465 });
    expect(patchSmtpProvider.decide(loaded, { providerId: 'p1', changes: { password: '' } }, context()).events[0]!.payload).toEqual({ password: '' });
    expect(codeOf(() => patchSmtpProvider.decide(given([]), { providerId: 'p1', changes: {} }, context()))).toBe('smtp_provider.not_found');
    const hook: SmsProvider = { description: '', providerType: 'generic', url: 'https://h.example.com', signingKey: 'sealed:k', accountSid: '', authToken: '', senderNumber: '', baseUrl: '' };
    const sms = given([{ kind: SMS_PROVIDERS.kind, record: record('s1', hook, owner) }]);
    expect(codeOf(() => patchSmsProvider.decide(sms, { providerId: 's1', changes: { providerType: 'twilio' } }, context()))).toBe('sms_provider.type_immutable');
    expect(patchSmsProvider.decide(sms, { providerId: 's1', changes: { signingKey: 'k2' } }, context()).events[0]!.payload).toEqual({ signingKey: 'sealed:k2' });
  });

  it('activation goes through the one activation aggregate; re-activating or deactivating an inactive one records nothing', () => {
    const first = setSmtpProviderActivation.decide(given([smtp('p1'), smtp('p2')]), { providerId: 'p1', active: true }, context());
    expect(first.events).toEqual([expect.objectContaining({ aggregateType: 'smtp_provider_activation', aggregateId: 'i1', type: 'instance.smtp.provider.activated', payload: { id: 'p1', previousId: '' } })]);
    const loaded = given([smtp('p1'), smtp('p2'), activation('p1')]);
    expect(setSmtpProviderActivation.decide(loaded, { providerId: 'p1', active: true }, context()).events).toEqual([]);
    // the no-op answers the later of the provider's and the activation's last change
    expect(setSmtpProviderActivation.decide(loaded, { providerId: 'p1', active: true }, context()).reply(noOutcome).sequence).toBe(7);
    expect(setSmtpProviderActivation.decide(loaded, { providerId: 'p2', active: true }, context()).events[0]!.payload).toEqual({ id: 'p2', previousId: 'p1' });
    expect(setSmtpProviderActivation.decide(loaded, { providerId: 'p2', active: false }, context()).events).toEqual([]);
    expect(setSmtpProviderActivation.decide(loaded, { providerId: 'p1', active: false }, context()).events[0]).toMatchObject({ type: 'instance.smtp.provider.deactivated', payload: { id: 'p1' } });
    expect(codeOf(() => setSmtpProviderActivation.decide(loaded, { providerId: 'p9', active: true }, context()))).toBe('smtp_provider.not_found');
  });

  it('removing the active provider deactivates it in the same decision; another one stays active', () => {
    const removed = removeSmtpProvider.decide(given([smtp('p1'), activation('p1')]), { providerId: 'p1' }, context());
    expect(removed.events.map((e) => e.type)).toEqual(['instance.smtp.provider.deactivated', 'instance.smtp.provider.removed']);
    const other = removeSmtpProvider.decide(given([smtp('p2'), activation('p1')]), { providerId: 'p2' }, context());
    expect(other.events.map((e) => e.type)).toEqual(['instance.smtp.provider.removed']);
  });
});

describe('provider evolve', () => {
  const event = (type: string, payload: unknown): StoredEvent => ({ type, payload }) as unknown as StoredEvent;
  it('the activation names one provider at a time', () => {
    const kind = SMTP_PROVIDERS.activation;
    let state = kind.evolve(undefined, event('instance.smtp.provider.activated', { id: 'p1', previousId: '' }));
    expect(state).toEqual({ activeId: 'p1' });
    state = kind.evolve(state, event('instance.smtp.provider.activated', { id: 'p2', previousId: 'p1' }));
    expect(state).toEqual({ activeId: 'p2' });
    expect(kind.evolve(state, event('instance.smtp.provider.deactivated', { id: 'p1' }))).toEqual({ activeId: 'p2' });
    expect(kind.evolve(state, event('instance.smtp.provider.deactivated', { id: 'p2' }))).toEqual({ activeId: '' });
  });

  it('a provider folds added, changed and removed', () => {
    const kind = SMTP_PROVIDERS.kind;
    const added = kind.evolve(undefined, event('instance.smtp.provider.added', mail()));
    const changed = kind.evolve(added, event('instance.smtp.provider.changed', { port: 25 }));
    expect(changed).toEqual({ ...mail(), port: 25 });
    expect(kind.evolve(changed, event('instance.smtp.provider.removed', {}))).toBeUndefined();
    // an SMS event does not touch an SMTP provider
    expect(kind.evolve(changed, event('instance.sms.provider.removed', {}))).toEqual(changed);
  });
});
