/**
 * The SMS provider aggregate (seed 000 PlatformSMSProviders): an HTTP provider, either a
 * generic JSON webhook signed with the provider's key or Twilio's Messages API. Fields of the
 * other type are ''. The signing key and the auth token are recorded sealed.
 */
import { smsProviderActivationEvents, smsProviderEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { emitter } from '../kernel/events.js';
import { evolveDelivery, nextActivation, type ProviderActivation, type ProviderActivationEvent, type ProviderEvent, type ProviderFamily } from './provider-family.js';

export type SmsProviderType = 'generic' | 'twilio';

export interface SmsProvider {
  readonly description: string;
  readonly providerType: SmsProviderType;
  /** generic: the webhook URL. */
  readonly url: string;
  /** generic: sealed HMAC-SHA256 key. */
  readonly signingKey: string;
  /** twilio */
  readonly accountSid: string;
  /** twilio: sealed. */
  readonly authToken: string;
  readonly senderNumber: string;
  /** twilio: '' means https://api.twilio.com. */
  readonly baseUrl: string;
}

export type SmsProviderEvent = ProviderEvent<'sms', SmsProvider>;
export type SmsProviderActivationEvent = ProviderActivationEvent<'sms'>;

/** SMS providers of an instance: stream `sms_provider`, table `sms_providers`. */
export const smsProviderKind: AggregateKind<SmsProvider, SmsProviderEvent, 'sms_provider'> = {
  type: 'sms_provider',
  table: 'sms_providers',
  events: smsProviderEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'instance.sms.provider.added':
        return { ...e.payload };
      case 'instance.sms.provider.changed':
        return state && { ...state, ...e.payload };
      case 'instance.sms.provider.removed':
        return undefined;
      case 'instance.sms.provider.delivery.failed':
        return evolveDelivery(state, { error: e.payload.error, at: e.createdAt });
      case 'instance.sms.provider.delivery.recovered':
        return evolveDelivery(state, undefined);
      default:
        return state;
    }
  },
};

/** The instance's active SMS provider: stream `sms_provider_activation`, id = instance id. */
export const smsActivationKind: AggregateKind<ProviderActivation, SmsProviderActivationEvent, 'sms_provider_activation'> = {
  type: 'sms_provider_activation',
  table: 'sms_provider_activations',
  events: smsProviderActivationEvents,
  evolve(state, e) {
    return nextActivation(state, { activated: e.type === 'instance.sms.provider.activated', id: e.payload.id });
  },
};

export const SMS_PROVIDERS: ProviderFamily<SmsProvider> = {
  name: 'sms',
  kind: smsProviderKind,
  activation: smsActivationKind,
  events: {
    added: (id, owner, creator, payload) => emitter(smsProviderKind, id, owner, creator)({ type: 'instance.sms.provider.added', payload }),
    changed: (id, owner, creator, payload) => emitter(smsProviderKind, id, owner, creator)({ type: 'instance.sms.provider.changed', payload }),
    removed: (id, owner, creator) => emitter(smsProviderKind, id, owner, creator)({ type: 'instance.sms.provider.removed', payload: {} }),
    deliveryFailed: (id, owner, creator, payload) => emitter(smsProviderKind, id, owner, creator)({ type: 'instance.sms.provider.delivery.failed', payload }),
    deliveryRecovered: (id, owner, creator) => emitter(smsProviderKind, id, owner, creator)({ type: 'instance.sms.provider.delivery.recovered', payload: {} }),
    activated: (id, owner, creator, payload) => emitter(smsActivationKind, id, owner, creator)({ type: 'instance.sms.provider.activated', payload }),
    deactivated: (id, owner, creator, payload) => emitter(smsActivationKind, id, owner, creator)({ type: 'instance.sms.provider.deactivated', payload }),
  },
  sealed: ['signingKey', 'authToken'],
  immutable: ['providerType'],
  notFoundCode: 'sms_provider.not_found',
};
