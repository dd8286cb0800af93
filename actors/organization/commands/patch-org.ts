/** Renames an organization; a patch that changes nothing records nothing and succeeds. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { ORG_NAME_SCOPE, orgKind, orgNameKey } from '../org.js';

export interface PatchOrg {
  readonly orgId: string;
  readonly name?: string;
}

export const patchOrg: CommandHandler<PatchOrg, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(orgKind, c.orgId).record;
    if (current === undefined) throw notFound('org.not_found', 'organization not found');
    const owner = orgOwner(c.orgId);
    const name = c.name?.trim();
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.orgId, record: current, owner });
    if (name === undefined || name === current.state.name) return { events: [], reply };
    const renamedOnlyCase = orgNameKey(name) === orgNameKey(current.state.name);
    return {
      events: [{ aggregateType: orgKind.type, aggregateId: c.orgId, type: 'org.changed', owner, creator: ctx.creator, payload: { name } }],
      claims: renamedOnlyCase ? [] : [{ scope: ORG_NAME_SCOPE, value: orgNameKey(name), holder: c.orgId }],
      releases: renamedOnlyCase ? [] : [{ scope: ORG_NAME_SCOPE, value: orgNameKey(current.state.name) }],
      reply,
    };
  },
};
