/**
 * Records a new challenge for an unverified domain (`_generate_validation`). The edge
 * generates the random token; a later challenge replaces an earlier one.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainValidationType } from '../org-domain.js';
import { orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent, requireOrgDomain } from './org-domain-lookup.js';

export interface AddOrgDomainVerification {
  readonly orgId: string;
  readonly domain: string;
  /** Absent: the domain's current validation type. */
  readonly validationType?: DomainValidationType;
  readonly token: string;
}

export interface DomainChallenge {
  readonly details: ResourceDetails;
  readonly validationType: DomainValidationType;
}

export const addOrgDomainVerification: CommandHandler<AddOrgDomainVerification, DomainChallenge> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { entry } = requireOrgDomain(loaded, c.orgId, c.domain);
    if (entry.isVerified) throw failedPrecondition('domain.already_verified', 'the domain is already verified');
    const validationType = c.validationType ?? entry.validationType;
    return {
      events: [
        domainEvent(c.orgId, ctx.creator, { type: 'org.domain.verification.added', payload: { domain: c.domain, validationType, token: c.token } }),
      ],
      reply: (outcome) => ({ details: domainDetailsAfter(outcome, c.orgId, c.domain, entry), validationType }),
    };
  },
};
