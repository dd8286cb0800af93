/** Removes a role from a project. Grants keep the key but list only existing roles when read (docs/api/grants.md). */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';

export interface RemoveProjectRole {
  readonly projectId: string;
  readonly orgId: string;
  readonly key: string;
}

export const removeProjectRole: CommandHandler<RemoveProjectRole, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    if (!project.state.roles.some((r) => r.key === c.key)) throw notFound('project.role_not_found', 'project role not found');
    const owner = orgOwner(c.orgId);
    return {
      events: [
        { aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.role.removed', owner, creator: ctx.creator, payload: { key: c.key } },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.key, record: undefined, owner }),
    };
  },
};
