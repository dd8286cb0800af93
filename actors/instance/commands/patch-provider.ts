/**
 * Changes an SMTP or SMS provider: only fields that differ are recorded (secrets compared with
 * the opened current value), a patch that changes nothing records nothing. A field the family
 * declares immutable (the SMS provider type) is refused.
 */
import { invalidArgument, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { ProviderFamily } from '../provider-family.js';
import { SMS_PROVIDERS, type SmsProvider } from '../sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../smtp-provider.js';

export interface PatchProvider<S> {
  readonly providerId: string;
  /** Secret fields in plaintext ('' removes the secret). */
  readonly changes: Partial<S>;
}

function patchProviderCommand<S extends object>(family: ProviderFamily<S>): CommandHandler<PatchProvider<S>, ResourceDetails> {
  return {
    load: (c) => [ref(family.kind, c.providerId)],
    decide(loaded, c, ctx) {
      const current = loaded.get(family.kind, c.providerId).record;
      if (current === undefined) throw notFound(family.notFoundCode, 'provider not found');
      const owner = instanceOwner(ctx.instanceId);
      const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.providerId, record: current, owner });
      const state = current.state as Record<string, unknown>;
      const changes: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(c.changes as Record<string, unknown>)) {
        if (value === undefined) continue;
        if ((family.immutable as readonly string[]).includes(name) && value !== state[name]) {
          throw invalidArgument(`${family.name}_provider.type_immutable`, `the provider's ${name} cannot change`);
        }
        if ((family.sealed as readonly string[]).includes(name)) {
          const before = state[name] === '' ? '' : ctx.sealer.open(String(state[name]));
          if (value !== before) changes[name] = value === '' ? '' : ctx.sealer.seal(String(value));
        } else if (value !== state[name]) {
          changes[name] = value;
        }
      }
      if (Object.keys(changes).length === 0) return { events: [], reply };
      return {
        // The keys come from `c.changes` (Partial<S>); each value is the patch's own, or for a
        // sealed field (a string) its sealed form: still a Partial<S>.
        events: [family.events.changed(c.providerId, owner, ctx.creator, changes as Partial<S>)],
        reply,
      };
    },
  };
}

/** `smtp.provider.patch`: records `instance.smtp.provider.changed` with the changed fields. */
export const patchSmtpProvider = patchProviderCommand<SmtpProvider>(SMTP_PROVIDERS);
/** `sms.provider.patch`: records `instance.sms.provider.changed` with the changed fields. */
export const patchSmsProvider = patchProviderCommand<SmsProvider>(SMS_PROVIDERS);
