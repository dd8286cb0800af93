/**
 * Makes a verified domain the organization's primary domain (the suffix of its users' login
 * names). Setting the current primary domain again records nothing.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent, requireOrgDomain } from './org-domain-lookup.js';

export interface SetPrimaryOrgDomain {
  readonly orgId: string;
  readonly domain: string;
}

export const setPrimaryOrgDomain: CommandHandler<SetPrimaryOrgDomain, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { org, entry } = requireOrgDomain(loaded, c.orgId, c.domain);
    const reply = (outcome: Outcome) => domainDetailsAfter(outcome, c.orgId, c.domain, entry);
    if (org.state.primaryDomain === c.domain) return { events: [], reply };
    if (!entry.isVerified) throw failedPrecondition('domain.not_verified', 'only a verified domain can become primary');
    return { events: [domainEvent(c.orgId, ctx.creator, { type: 'org.domain.primary.set', payload: { domain: c.domain } })], reply };
  },
};
