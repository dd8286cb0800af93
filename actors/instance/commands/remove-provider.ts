/**
 * Removes an SMTP or SMS provider; removing the active one also records its deactivation on the
 * instance's activation aggregate (same append), so no removed provider stays active.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { ProviderFamily } from '../provider-family.js';
import { SMS_PROVIDERS, type SmsProvider } from '../sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../smtp-provider.js';

export interface RemoveProvider {
  readonly providerId: string;
}

function removeProviderCommand<S extends object>(family: ProviderFamily<S>): CommandHandler<RemoveProvider, ResourceDetails> {
  return {
    load: (c, ctx) => [ref(family.kind, c.providerId), ref(family.activation, ctx.instanceId)],
    decide(loaded, c, ctx) {
      const current = loaded.get(family.kind, c.providerId).record;
      if (current === undefined) throw notFound(family.notFoundCode, 'provider not found');
      const owner = instanceOwner(ctx.instanceId);
      const active = loaded.get(family.activation, ctx.instanceId).record?.state.activeId === c.providerId;
      const events: DomainEvent[] = [];
      if (active) events.push(family.events.deactivated(ctx.instanceId, owner, ctx.creator, { id: c.providerId }));
      events.push(family.events.removed(c.providerId, owner, ctx.creator));
      return { events, reply: (outcome) => detailsAfter(outcome, { id: c.providerId, record: current, owner }) };
    },
  };
}

/** `smtp.provider.remove`: records `instance.smtp.provider.removed` (after `…deactivated` if active). */
export const removeSmtpProvider = removeProviderCommand<SmtpProvider>(SMTP_PROVIDERS);
/** `sms.provider.remove`: records `instance.sms.provider.removed` (after `…deactivated` if active). */
export const removeSmsProvider = removeProviderCommand<SmsProvider>(SMS_PROVIDERS);
