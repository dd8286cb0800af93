/**
 * Removes an organization and releases its name and domains. The instance's default
 * organization cannot be removed (set another default first).
 */
import { failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { instanceSettingsKind } from '../../instance/settings.js';
import { ORG_DOMAIN_SCOPE, ORG_NAME_SCOPE, orgDomains, orgKind, orgNameKey } from '../org.js';

export interface RemoveOrg {
  readonly orgId: string;
}

export const removeOrg: CommandHandler<RemoveOrg, ResourceDetails> = {
  load: (c, ctx) => [ref(orgKind, c.orgId), ref(instanceSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(orgKind, c.orgId).record;
    if (current === undefined) throw notFound('org.not_found', 'organization not found');
    const settings = loaded.get(instanceSettingsKind, ctx.instanceId).record;
    if (settings?.state.defaultOrgId === c.orgId) {
      throw failedPrecondition('org.is_default', 'the default organization of the instance cannot be deleted');
    }
    const owner = orgOwner(c.orgId);
    return {
      events: [{ aggregateType: orgKind.type, aggregateId: c.orgId, type: 'org.removed', owner, creator: ctx.creator, payload: {} }],
      releases: [
        { scope: ORG_NAME_SCOPE, value: orgNameKey(current.state.name) },
        ...orgDomains(current.state).map((d) => ({ scope: ORG_DOMAIN_SCOPE, value: d.domain })),
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.orgId, record: current, owner }),
    };
  },
};
