/** Turns an instance feature flag on or off (no event when it already has that value). */
import { ref } from '../../kernel/command.js';
import { detailsAfter, instanceOwner } from '../../kernel/owner.js';
import { instanceSettingsKind } from '../settings.js';
export const setFeature = {
    load: (_c, ctx) => [ref(instanceSettingsKind, ctx.instanceId)],
    decide(loaded, c, ctx) {
        const settings = loaded.get(instanceSettingsKind, ctx.instanceId).record;
        const owner = instanceOwner(ctx.instanceId);
        const reply = (outcome) => detailsAfter(outcome, { id: ctx.instanceId, record: settings, owner });
        if ((settings?.state.features[c.name] ?? false) === c.value && settings !== undefined)
            return { events: [], reply };
        return {
            events: [
                {
                    aggregateType: instanceSettingsKind.type,
                    aggregateId: ctx.instanceId,
                    type: 'instance.feature.set',
                    owner,
                    creator: ctx.creator,
                    payload: { name: c.name, value: c.value },
                },
            ],
            reply,
        };
    },
};
