/**
 * Creates an SMTP or SMS provider (inactive). Secret fields come in plaintext from the edge and
 * are sealed here, so only sealed values are ever recorded.
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { ProviderFamily } from '../provider-family.js';
import { SMS_PROVIDERS, type SmsProvider } from '../sms-provider.js';
import { SMTP_PROVIDERS, type SmtpProvider } from '../smtp-provider.js';

export interface CreateProvider<S> {
  readonly providerId: string;
  /** Secret fields in plaintext. */
  readonly fields: S;
}

/** The fields with every secret field sealed: the same shape as given (a whole S or a patch of it). */
export function sealFields<S extends object, F extends Partial<S>>(family: ProviderFamily<S>, fields: F, seal: (plaintext: string) => string): F {
  const out: Record<string, unknown> = { ...fields };
  for (const name of family.sealed) {
    const value = out[name];
    if (typeof value === 'string' && value !== '') out[name] = seal(value);
  }
  return out as F;
}

function createProviderCommand<S extends object>(family: ProviderFamily<S>): CommandHandler<CreateProvider<S>, ResourceDetails> {
  return {
    load: (c) => [ref(family.kind, c.providerId)],
    decide(loaded, c, ctx) {
      if (loaded.get(family.kind, c.providerId).version > 0) throw alreadyExists(`${family.name}_provider.exists`, 'the provider already exists');
      const owner = instanceOwner(ctx.instanceId);
      const payload = sealFields(family, c.fields, (v) => ctx.sealer.seal(v));
      return {
        events: [family.events.added(c.providerId, owner, ctx.creator, payload)],
        reply: (outcome) => detailsAfter(outcome, { id: c.providerId, record: undefined, owner }),
      };
    },
  };
}

/** `smtp.provider.create`: records `instance.smtp.provider.added`. */
export const createSmtpProvider = createProviderCommand<SmtpProvider>(SMTP_PROVIDERS);
/** `sms.provider.create`: records `instance.sms.provider.added`. */
export const createSmsProvider = createProviderCommand<SmsProvider>(SMS_PROVIDERS);
