/**
 * Sets the instance's rate limits (partial: a limit not named keeps its value; `null` resets it
 * to the node default). Values arrive validated by the edge (`N/duration` or `off`); one
 * `instance.rate_limits.set` with the whole resulting set when anything changes, else no event.
 */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { instanceSettingsKind } from '../settings.js';

export interface SetRateLimits {
  /** Limit name → its new value, or null to take the node default again. */
  readonly limits: Readonly<Record<string, string | null>>;
}

export const setRateLimits: CommandHandler<SetRateLimits, ResourceDetails> = {
  load: (_c, ctx) => [ref(instanceSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const settings = loaded.get(instanceSettingsKind, ctx.instanceId).record;
    const owner = instanceOwner(ctx.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: ctx.instanceId, record: settings, owner });
    const current = settings?.state.rateLimits ?? {};
    const next: Record<string, string> = { ...current };
    for (const [name, value] of Object.entries(c.limits)) {
      if (value === null) delete next[name];
      else next[name] = value;
    }
    const same = Object.keys(next).length === Object.keys(current).length && Object.entries(next).every(([name, value]) => current[name] === value);
    if (same) return { events: [], reply };
    return {
      events: [{ aggregateType: instanceSettingsKind.type, aggregateId: ctx.instanceId, type: 'instance.rate_limits.set', owner, creator: ctx.creator, payload: { limits: next } }],
      reply,
    };
  },
};
