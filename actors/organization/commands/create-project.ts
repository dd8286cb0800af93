/** Creates a project in an organization; its name is claimed per organization. */
import { alreadyExists, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { PROJECT_NAME_SCOPE, projectKind, projectNameKey, type ProjectSettings } from '../project.js';

export interface CreateProject extends ProjectSettings {
  readonly projectId: string;
  readonly orgId: string;
  readonly name: string;
}

export const createProject: CommandHandler<CreateProject, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    if (loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    if (loaded.get(projectKind, c.projectId).version > 0) throw alreadyExists('project.exists', 'the project already exists');
    const owner = orgOwner(c.orgId);
    const name = c.name.trim();
    const payload = {
      name,
      projectRoleAssertion: c.projectRoleAssertion,
      projectRoleCheck: c.projectRoleCheck,
      hasProjectCheck: c.hasProjectCheck,
    };
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.added', owner, creator: ctx.creator, payload }],
      claims: [{ scope: PROJECT_NAME_SCOPE, value: projectNameKey(c.orgId, name), holder: c.projectId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.projectId, record: undefined, owner }),
    };
  },
};
