/** Adds a role to a project; keys are unique within the project (case-sensitive, as in claims). */
import { alreadyExists, failedPrecondition, validationFailed } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { MAX_PROJECT_ROLES, projectKind, requireLiveProject, ROLE_KEY_PATTERN } from '../project.js';

export interface AddProjectRole {
  readonly projectId: string;
  readonly orgId: string;
  readonly key: string;
  readonly displayName: string;
  readonly group: string;
}

export const addProjectRole: CommandHandler<AddProjectRole, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    if (!ROLE_KEY_PATTERN.test(c.key)) throw validationFailed([{ field: 'role.key', description: 'must be 1..200 of A-Z a-z 0-9 _ . : -' }]);
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    if (project.state.roles.some((r) => r.key === c.key)) throw alreadyExists('project.role_key_taken', 'the project already has a role with this key');
    if (project.state.roles.length >= MAX_PROJECT_ROLES) throw failedPrecondition('project.too_many_roles', `a project has at most ${MAX_PROJECT_ROLES} roles`);
    const owner = orgOwner(c.orgId);
    const payload = { key: c.key, displayName: c.displayName.trim(), group: c.group.trim() };
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.role.added', owner, creator: ctx.creator, payload }],
      reply: (outcome) => detailsAfter(outcome, { id: c.key, record: undefined, owner }),
    };
  },
};
