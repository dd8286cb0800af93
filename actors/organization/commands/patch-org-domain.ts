/** Changes a domain's validation type; a patch that changes nothing records nothing. */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainValidationType } from '../org-domain.js';
import { orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent, requireOrgDomain } from './org-domain-lookup.js';

export interface PatchOrgDomain {
  readonly orgId: string;
  readonly domain: string;
  readonly validationType?: DomainValidationType;
}

export const patchOrgDomain: CommandHandler<PatchOrgDomain, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { entry } = requireOrgDomain(loaded, c.orgId, c.domain);
    const reply = (outcome: Outcome) => domainDetailsAfter(outcome, c.orgId, c.domain, entry);
    if (c.validationType === undefined || c.validationType === entry.validationType) return { events: [], reply };
    return {
      events: [domainEvent(c.orgId, ctx.creator, { type: 'org.domain.changed', payload: { domain: c.domain, validationType: c.validationType } })],
      reply,
    };
  },
};
