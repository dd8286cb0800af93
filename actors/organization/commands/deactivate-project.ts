/**
 * Deactivates a project: its applications can no longer be used by clients (the client
 * lookup skips them). Deactivating an inactive project succeeds and records nothing.
 */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';

export interface DeactivateProject {
  readonly projectId: string;
  readonly orgId: string;
}

export const deactivateProject: CommandHandler<DeactivateProject, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const current = requireLiveProject(loaded, c.orgId, c.projectId);
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.projectId, record: current, owner });
    if (current.state.state === 'inactive') return { events: [], reply };
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.deactivated', owner, creator: ctx.creator, payload: {} }],
      reply,
    };
  },
};
