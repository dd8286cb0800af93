/**
 * Marks a domain verified after the edge checked its challenge (DNS or HTTP). The token the
 * edge checked must still be the pending one: a challenge generated meanwhile wins.
 * An already verified domain records nothing.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { domainDetailsAfter, domainEvent, requireOrgDomain } from './org-domain-lookup.js';

export interface VerifyOrgDomain {
  readonly orgId: string;
  readonly domain: string;
  /** The token whose publication the edge confirmed. */
  readonly token: string;
}

export const verifyOrgDomain: CommandHandler<VerifyOrgDomain, ResourceDetails> = {
  load: (c) => [ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const { entry } = requireOrgDomain(loaded, c.orgId, c.domain);
    const reply = (outcome: Outcome) => domainDetailsAfter(outcome, c.orgId, c.domain, entry);
    if (entry.isVerified) return { events: [], reply };
    if (entry.validationToken === '') throw failedPrecondition('domain.validation_missing', 'generate a validation first');
    if (entry.validationToken !== c.token) throw failedPrecondition('domain.validation_outdated', 'a newer validation was generated; validate again');
    return { events: [domainEvent(c.orgId, ctx.creator, { type: 'org.domain.verified', payload: { domain: c.domain } })], reply };
  },
};
