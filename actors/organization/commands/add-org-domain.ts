/**
 * Adds an unverified domain to an organization. Domains are unique within the instance
 * (claimed under `org.domain`); an organization holds at most MAX_ORG_DOMAINS.
 */
import { alreadyExists, failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { MAX_ORG_DOMAINS, type DomainValidationType } from '../org-domain.js';
import { ORG_DOMAIN_SCOPE, orgDomains, orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent } from './org-domain-lookup.js';

export interface AddOrgDomain {
  readonly orgId: string;
  /** Normalized (lower case, no trailing dot) at the edge. */
  readonly domain: string;
  readonly validationType: DomainValidationType;
}

export const addOrgDomain: CommandHandler<AddOrgDomain, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const org = loaded.get(orgKind, c.orgId).record;
    if (org === undefined) throw notFound('org.not_found', 'organization not found');
    const domains = orgDomains(org.state);
    if (domains.some((d) => d.domain === c.domain)) throw alreadyExists('org.domain_taken', 'the organization already has this domain');
    if (domains.length >= MAX_ORG_DOMAINS) throw failedPrecondition('domain.limit_reached', `an organization holds at most ${MAX_ORG_DOMAINS} domains`);
    return {
      events: [domainEvent(c.orgId, ctx.creator, { type: 'org.domain.added', payload: { domain: c.domain, validationType: c.validationType } })],
      claims: [{ scope: ORG_DOMAIN_SCOPE, value: c.domain, holder: c.orgId }],
      reply: (outcome) => domainDetailsAfter(outcome, c.orgId, c.domain, undefined),
    };
  },
};
