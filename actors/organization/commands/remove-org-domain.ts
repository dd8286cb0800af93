/** Removes a domain from its organization and frees it; the primary domain cannot be removed. */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { ORG_DOMAIN_SCOPE, orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent, requireOrgDomain } from './org-domain-lookup.js';

export interface RemoveOrgDomain {
  readonly orgId: string;
  readonly domain: string;
}

export const removeOrgDomain: CommandHandler<RemoveOrgDomain, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { org, entry } = requireOrgDomain(loaded, c.orgId, c.domain);
    if (org.state.primaryDomain === c.domain) {
      throw failedPrecondition('domain.is_primary', 'the primary domain cannot be removed; set another primary domain first');
    }
    return {
      events: [domainEvent(c.orgId, ctx.creator, { type: 'org.domain.removed', payload: { domain: c.domain } })],
      releases: [{ scope: ORG_DOMAIN_SCOPE, value: c.domain }],
      reply: (outcome) => domainDetailsAfter(outcome, c.orgId, c.domain, entry),
    };
  },
};
