/**
 * Activates or deactivates an SMTP or SMS provider. Both go through the instance's one
 * activation aggregate: activating records `…activated {id, previousId}` (the provider active
 * before is thereby inactive), deactivating the active provider records `…deactivated {id}`.
 * Activating the active provider, or deactivating an inactive one, records nothing (and answers
 * the details of the later of the provider's and the activation's last change).
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { ProviderFamily } from '../provider-family.js';
import { SMS_PROVIDERS, type SmsProvider } from '../sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../smtp-provider.js';

export interface SetProviderActivation {
  readonly providerId: string;
  readonly active: boolean;
}

function setActivationCommand<S extends object>(family: ProviderFamily<S>): CommandHandler<SetProviderActivation, ResourceDetails> {
  return {
    load: (c, ctx) => [ref(family.kind, c.providerId), ref(family.activation, ctx.instanceId)],
    decide(loaded, c, ctx) {
      const current = loaded.get(family.kind, c.providerId).record;
      if (current === undefined) throw notFound(family.notFoundCode, 'provider not found');
      const owner = instanceOwner(ctx.instanceId);
      const activation = loaded.get(family.activation, ctx.instanceId).record;
      // A no-op answers the later of the provider's last change and the last activation change.
      const latest = activation !== undefined && activation.meta.sequence > current.meta.sequence ? { ...activation, id: c.providerId } : current;
      const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.providerId, record: latest, owner });
      const activeId = activation?.state.activeId ?? '';
      if (c.active === (activeId === c.providerId)) return { events: [], reply };
      const event = c.active
        ? family.events.activated(ctx.instanceId, owner, ctx.creator, { id: c.providerId, previousId: activeId })
        : family.events.deactivated(ctx.instanceId, owner, ctx.creator, { id: c.providerId });
      return { events: [event], reply };
    },
  };
}

/** `smtp.provider.activation`: records `instance.smtp.provider.activated` / `…deactivated`. */
export const setSmtpProviderActivation = setActivationCommand<SmtpProvider>(SMTP_PROVIDERS);
/** `sms.provider.activation`: records `instance.sms.provider.activated` / `…deactivated`. */
export const setSmsProviderActivation = setActivationCommand<SmsProvider>(SMS_PROVIDERS);
