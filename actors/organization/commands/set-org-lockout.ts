/**
 * Sets an organization's own lockout thresholds (SetUserSettings with an organization
 * context): records `org.policy.lockout.set` (failed passwords) and `org.policy.lockout.otp.set`
 * (failed OTP checks) for the values given; an unchanged value records nothing.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { emitter } from '../../kernel/events.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { orgKind } from '../org.js';
import { orgLockoutKind } from '../org-lockout.js';

export interface SetOrgLockout {
  readonly orgId: string;
  readonly maxPasswordAttempts?: number;
  readonly maxOtpAttempts?: number;
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
    const emit = emitter(orgLockoutKind, c.orgId, owner, ctx.creator);
    const events: DomainEvent[] = [];
    if (c.maxPasswordAttempts !== undefined && row?.state.maxPasswordAttempts !== c.maxPasswordAttempts) {
      events.push(emit({ type: 'org.policy.lockout.set', payload: { maxPasswordAttempts: c.maxPasswordAttempts } }));
    }
    if (c.maxOtpAttempts !== undefined && row?.state.maxOtpAttempts !== c.maxOtpAttempts) {
      events.push(emit({ type: 'org.policy.lockout.otp.set', payload: { maxOtpAttempts: c.maxOtpAttempts } }));
    }
    return { events, reply };
  },
};
