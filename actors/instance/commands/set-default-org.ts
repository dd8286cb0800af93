/** Makes an existing organization the instance default (where new users land by default). */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { instanceSettingsKind } from '../settings.js';

export interface SetDefaultOrg {
  readonly orgId: string;
}

export const setDefaultOrg: CommandHandler<SetDefaultOrg, ResourceDetails> = {
  load: (c, ctx) => [ref(instanceSettingsKind, ctx.instanceId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    if (loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    const settings = loaded.get(instanceSettingsKind, ctx.instanceId).record;
    const owner = instanceOwner(ctx.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.orgId, record: settings, owner });
    if (settings?.state.defaultOrgId === c.orgId) return { events: [], reply };
    return {
      events: [
        {
          aggregateType: instanceSettingsKind.type,
          aggregateId: ctx.instanceId,
          type: 'instance.default.org.set',
          owner,
          creator: ctx.creator,
          payload: { orgId: c.orgId },
        },
      ],
      reply,
    };
  },
};
