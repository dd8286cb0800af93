/**
 * Removes a project grant and releases its (project, organization) claim. User grants that
 * relied on it are not rewritten: they grant nothing from then on (filtered when read).
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { PROJECT_GRANT_SCOPE, projectGrantKey, projectGrantKind, requireLiveProjectGrant } from '../project-grant.js';

export interface RemoveProjectGrant {
  readonly grantId: string;
  readonly orgId: string;
}

export const removeProjectGrant: CommandHandler<RemoveProjectGrant, ResourceDetails> = {
  load: (c) => [ref(projectGrantKind, c.grantId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const grant = requireLiveProjectGrant(loaded, c.orgId, c.grantId);
    const owner = orgOwner(c.orgId);
    return {
      events: [{ aggregateType: projectGrantKind.type, aggregateId: c.grantId, type: 'project.grant.removed', owner, creator: ctx.creator, payload: {} }],
      releases: [{ scope: PROJECT_GRANT_SCOPE, value: projectGrantKey(grant.state.projectId, grant.state.grantedOrgId) }],
      reply: (outcome) => detailsAfter(outcome, { id: c.grantId, record: grant, owner }),
    };
  },
};
