/**
 * Sets several feature flags of the instance in one append (partial: flags not named keep
 * their value). One `instance.feature.set` per flag whose value changes; none → no event.
 */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { instanceSettingsKind } from '../settings.js';

export interface SetFeatures {
  readonly features: Readonly<Record<string, boolean>>;
}

export const setFeatures: CommandHandler<SetFeatures, ResourceDetails> = {
  load: (_c, ctx) => [ref(instanceSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const settings = loaded.get(instanceSettingsKind, ctx.instanceId).record;
    const owner = instanceOwner(ctx.instanceId);
    const stored = settings?.state.features ?? {};
    const events: DomainEvent[] = Object.entries(c.features)
      .filter(([name, value]) => stored[name] !== value)
      .map(([name, value]) => ({
        aggregateType: instanceSettingsKind.type,
        aggregateId: ctx.instanceId,
        type: 'instance.feature.set',
        owner,
        creator: ctx.creator,
        payload: { name, value },
      }));
    return { events, reply: (outcome: Outcome) => detailsAfter(outcome, { id: ctx.instanceId, record: settings, owner }) };
  },
};
