/**
 * Sets an organization's own lockout threshold (SetUserSettings with an organization context):
 * records `org.policy.lockout.set`; an unchanged value records nothing.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { orgLockoutKind } from '../org-lockout.js';

export interface SetOrgLockout {
  readonly orgId: string;
  readonly maxPasswordAttempts: number;
}

export const setOrgLockout: CommandHandler<SetOrgLockout, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId), ref(orgLockoutKind, c.orgId)],
  decide(loaded, c, ctx) {
    const org = loaded.get(orgKind, c.orgId).record;
    if (org === undefined) throw notFound('org.not_found', 'organization not found');
    const row = loaded.get(orgLockoutKind, c.orgId).record;
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome): ResourceDetails => {
      const last = outcome.events[outcome.events.length - 1];
      const base = row?.meta ?? org.meta;
      return { id: c.orgId, sequence: last?.position ?? base.sequence, changeDate: last?.createdAt ?? base.changedAt, resourceOwner: owner };
    };
    if (row !== undefined && row.state.maxPasswordAttempts === c.maxPasswordAttempts) return { events: [], reply };
    return {
      events: [{ aggregateType: orgLockoutKind.type, aggregateId: c.orgId, type: 'org.policy.lockout.set', owner, creator: ctx.creator, payload: { maxPasswordAttempts: c.maxPasswordAttempts } }],
      reply,
    };
  },
};
