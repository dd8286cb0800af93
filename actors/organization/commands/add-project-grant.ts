/**
 * Grants a project to another organization with a subset of the project's roles. One grant
 * per (project, granted organization), claimed under `project.grant`.
 */
import { alreadyExists, notFound, validationFailed } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';
import { normalizeRoleKeys, PROJECT_GRANT_SCOPE, projectGrantKey, projectGrantKind, projectRoleKeys, requireRoleSubset } from '../project-grant.js';

export interface AddProjectGrant {
  readonly grantId: string;
  readonly projectId: string;
  /** The project's organization, which owns the grant. */
  readonly orgId: string;
  readonly grantedOrgId: string;
  readonly roleKeys: readonly string[];
}

export const addProjectGrant: CommandHandler<AddProjectGrant, ResourceDetails> = {
  load: (c) => [ref(projectGrantKind, c.grantId), ref(projectKind, c.projectId), ref(orgKind, c.orgId), ref(orgKind, c.grantedOrgId)],
  decide(loaded, c, ctx) {
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    if (c.grantedOrgId === c.orgId) {
      throw validationFailed([{ field: 'projectGrant.grantedOrgId', description: "must not be the project's own organization" }], 'project_grant.own_org');
    }
    if (loaded.get(orgKind, c.grantedOrgId).record === undefined) throw notFound('org.not_found', 'granted organization not found');
    if (loaded.get(projectGrantKind, c.grantId).version > 0) throw alreadyExists('project_grant.exists', 'the project grant already exists');
    const roleKeys = normalizeRoleKeys(c.roleKeys);
    requireRoleSubset(roleKeys, projectRoleKeys(project.state), 'projectGrant.roleKeys', 'project_grant.role_not_found', 'the project');
    const owner = orgOwner(c.orgId);
    const payload = { projectId: c.projectId, grantedOrgId: c.grantedOrgId, roleKeys };
    return {
      events: [{ aggregateType: projectGrantKind.type, aggregateId: c.grantId, type: 'project.grant.added', owner, creator: ctx.creator, payload }],
      claims: [{ scope: PROJECT_GRANT_SCOPE, value: projectGrantKey(c.projectId, c.grantedOrgId), holder: c.grantId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.grantId, record: undefined, owner }),
    };
  },
};
