/**
 * Replaces a project grant's role keys (a subset of the project's roles). A change that
 * changes nothing records nothing. User grants that rely on removed keys are not rewritten:
 * their keys are filtered when read.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';
import { normalizeRoleKeys, projectGrantKind, projectRoleKeys, requireLiveProjectGrant, requireRoleSubset } from '../project-grant.js';

export interface ChangeProjectGrant {
  readonly grantId: string;
  readonly projectId: string;
  readonly orgId: string;
  readonly roleKeys: readonly string[];
}

export const changeProjectGrant: CommandHandler<ChangeProjectGrant, ResourceDetails> = {
  load: (c) => [ref(projectGrantKind, c.grantId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const grant = requireLiveProjectGrant(loaded, c.orgId, c.grantId);
    if (grant.state.projectId !== c.projectId) throw notFound('project_grant.not_found', 'project grant not found');
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    const roleKeys = normalizeRoleKeys(c.roleKeys);
    requireRoleSubset(roleKeys, projectRoleKeys(project.state), 'projectGrant.roleKeys.keys', 'project_grant.role_not_found', 'the project');
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.grantId, record: grant, owner });
    if (sameKeys(roleKeys, grant.state.roleKeys)) return { events: [], reply };
    return {
      events: [{ aggregateType: projectGrantKind.type, aggregateId: c.grantId, type: 'project.grant.changed', owner, creator: ctx.creator, payload: { roleKeys } }],
      reply,
    };
  },
};

/** True when two normalized key lists are equal. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}
