/**
 * The SMTP provider aggregate (seed 000 PlatformSMTPProviders): where an instance's mail is
 * delivered from. The password is recorded sealed ('' when the server needs none).
 */
import { smtpProviderActivationEvents, smtpProviderEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { emitter } from '../kernel/events.js';
import { evolveDelivery, nextActivation, type ProviderActivation, type ProviderActivationEvent, type ProviderEvent, type ProviderFamily } from './provider-family.js';

/** `none`: plain text; `starttls`: upgrade required; `tls`: TLS from the first byte. */
export type SmtpTlsMode = 'none' | 'starttls' | 'tls';

export interface SmtpProvider {
  readonly description: string;
  readonly host: string;
  readonly port: number;
  readonly tlsMode: SmtpTlsMode;
  readonly user: string;
  /** Sealed; '' when none. */
  readonly password: string;
  readonly senderAddress: string;
  readonly senderName: string;
  readonly replyTo: string;
}

export type SmtpProviderEvent = ProviderEvent<'smtp', SmtpProvider>;
export type SmtpProviderActivationEvent = ProviderActivationEvent<'smtp'>;

/** SMTP providers of an instance: stream `smtp_provider`, table `smtp_providers`. */
export const smtpProviderKind: AggregateKind<SmtpProvider, SmtpProviderEvent, 'smtp_provider'> = {
  type: 'smtp_provider',
  table: 'smtp_providers',
  events: smtpProviderEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'instance.smtp.provider.added':
        return { ...e.payload };
      case 'instance.smtp.provider.changed':
        return state && { ...state, ...e.payload };
      case 'instance.smtp.provider.removed':
        return undefined;
      case 'instance.smtp.provider.delivery.failed':
        return evolveDelivery(state, { error: e.payload.error, at: e.createdAt });
      case 'instance.smtp.provider.delivery.recovered':
        return evolveDelivery(state, undefined);
      default:
        return state;
    }
  },
};

/** The instance's active SMTP provider: stream `smtp_provider_activation`, id = instance id. */
export const smtpActivationKind: AggregateKind<ProviderActivation, SmtpProviderActivationEvent, 'smtp_provider_activation'> = {
  type: 'smtp_provider_activation',
  table: 'smtp_provider_activations',
  events: smtpProviderActivationEvents,
  evolve(state, e) {
    return nextActivation(state, { activated: e.type === 'instance.smtp.provider.activated', id: e.payload.id });
  },
};

export const SMTP_PROVIDERS: ProviderFamily<SmtpProvider> = {
  name: 'smtp',
  kind: smtpProviderKind,
  activation: smtpActivationKind,
  events: {
    added: (id, owner, creator, payload) => emitter(smtpProviderKind, id, owner, creator)({ type: 'instance.smtp.provider.added', payload }),
    changed: (id, owner, creator, payload) => emitter(smtpProviderKind, id, owner, creator)({ type: 'instance.smtp.provider.changed', payload }),
    removed: (id, owner, creator) => emitter(smtpProviderKind, id, owner, creator)({ type: 'instance.smtp.provider.removed', payload: {} }),
    deliveryFailed: (id, owner, creator, payload) => emitter(smtpProviderKind, id, owner, creator)({ type: 'instance.smtp.provider.delivery.failed', payload }),
    deliveryRecovered: (id, owner, creator) => emitter(smtpProviderKind, id, owner, creator)({ type: 'instance.smtp.provider.delivery.recovered', payload: {} }),
    activated: (id, owner, creator, payload) => emitter(smtpActivationKind, id, owner, creator)({ type: 'instance.smtp.provider.activated', payload }),
    deactivated: (id, owner, creator, payload) => emitter(smtpActivationKind, id, owner, creator)({ type: 'instance.smtp.provider.deactivated', payload }),
  },
  sealed: ['password'],
  immutable: [],
  notFoundCode: 'smtp_provider.not_found',
};
