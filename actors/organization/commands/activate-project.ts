/** Activates (reactivates) a project; activating an active project succeeds and records nothing. */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';

export interface ActivateProject {
  readonly projectId: string;
  readonly orgId: string;
}

export const activateProject: CommandHandler<ActivateProject, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const current = requireLiveProject(loaded, c.orgId, c.projectId);
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.projectId, record: current, owner });
    if (current.state.state === 'active') return { events: [], reply };
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.reactivated', owner, creator: ctx.creator, payload: {} }],
      reply,
    };
  },
};
