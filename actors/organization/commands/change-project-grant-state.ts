/** Deactivates or reactivates a project grant; a grant already in that state records nothing. */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { projectGrantKind, requireLiveProjectGrant } from '../project-grant.js';

export type GrantStateAction = 'activate' | 'deactivate';

export interface ChangeProjectGrantState {
  readonly grantId: string;
  readonly orgId: string;
  readonly action: GrantStateAction;
}

export const changeProjectGrantState: CommandHandler<ChangeProjectGrantState, ResourceDetails> = {
  load: (c) => [ref(projectGrantKind, c.grantId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const grant = requireLiveProjectGrant(loaded, c.orgId, c.grantId);
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.grantId, record: grant, owner });
    const target = c.action === 'activate' ? 'active' : 'inactive';
    if (grant.state.state === target) return { events: [], reply };
    const type = c.action === 'activate' ? 'project.grant.reactivated' : 'project.grant.deactivated';
    return { events: [{ aggregateType: projectGrantKind.type, aggregateId: c.grantId, type, owner, creator: ctx.creator, payload: {} }], reply };
  },
};
