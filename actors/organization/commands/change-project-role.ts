/** Changes a project role's display name and group; a change that changes nothing records nothing. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject, type ProjectRole } from '../project.js';

export interface ChangeProjectRole {
  readonly projectId: string;
  readonly orgId: string;
  readonly key: string;
  readonly displayName?: string;
  readonly group?: string;
}

export const changeProjectRole: CommandHandler<ChangeProjectRole, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    const role = project.state.roles.find((r) => r.key === c.key);
    if (role === undefined) throw notFound('project.role_not_found', 'project role not found');
    const owner = orgOwner(c.orgId);
    const changes: { key: string; displayName?: string; group?: string } = { key: c.key };
    const displayName = c.displayName?.trim();
    const group = c.group?.trim();
    if (displayName !== undefined && displayName !== role.displayName) changes.displayName = displayName;
    if (group !== undefined && group !== role.group) changes.group = group;
    const reply = (outcome: Outcome) => roleDetails(outcome, role, owner);
    if (changes.displayName === undefined && changes.group === undefined) return { events: [], reply };
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.role.changed', owner, creator: ctx.creator, payload: changes }],
      reply,
    };
  },
};

/** Details of a role: its own sequence and change date (a no-op answers the current ones). */
export function roleDetails(outcome: Outcome, role: ProjectRole, owner: ResourceDetails['resourceOwner']): ResourceDetails {
  const last = outcome.events[outcome.events.length - 1];
  if (last !== undefined) return { id: role.key, sequence: last.position, changeDate: last.createdAt, resourceOwner: last.owner };
  return { id: role.key, sequence: role.sequence, changeDate: role.changedAt, resourceOwner: owner };
}
