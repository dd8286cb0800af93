/**
 * The outbox worker's report on a provider (issue 14): a failed delivery records
 * `instance.<kind>.provider.delivery.failed` with the error (the provider's `lastError`); the
 * next accepted message after a failure records `…delivery.recovered`. Nothing is recorded for
 * a success when no error is standing, nor for a removed provider.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { instanceOwner } from '../../kernel/owner.js';
import type { ProviderDeliveryState, ProviderFamily } from '../provider-family.js';
import { SMS_PROVIDERS, type SmsProvider } from '../sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../smtp-provider.js';

export interface RecordProviderDelivery {
  readonly providerId: string;
  /** The error of a failed delivery; undefined for an accepted one. */
  readonly error?: string;
}

function recordProviderDeliveryCommand<S extends object>(family: ProviderFamily<S>): CommandHandler<RecordProviderDelivery, void> {
  return {
    load: (c) => [ref(family.kind, c.providerId)],
    decide(loaded, c, ctx) {
      const current = loaded.get(family.kind, c.providerId).record;
      if (current === undefined) return { events: [], reply: () => undefined };
      const standing = (current.state as S & ProviderDeliveryState).lastError;
      if (c.error === undefined && standing === undefined) return { events: [], reply: () => undefined };
      if (c.error !== undefined && standing?.error === c.error && standing.at > ctx.now - 60_000) return { events: [], reply: () => undefined };
      const owner = instanceOwner(ctx.instanceId);
      const event =
        c.error === undefined ? family.events.deliveryRecovered(c.providerId, owner, ctx.creator) : family.events.deliveryFailed(c.providerId, owner, ctx.creator, { error: c.error });
      return { events: [event], reply: () => undefined };
    },
  };
}

export const recordSmtpProviderDelivery = recordProviderDeliveryCommand<SmtpProvider>(SMTP_PROVIDERS);
export const recordSmsProviderDelivery = recordProviderDeliveryCommand<SmsProvider>(SMS_PROVIDERS);
