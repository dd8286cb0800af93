/** Lookups and replies shared by the organization-domain commands. */
import type { AggregateRecord } from '../../kernel/aggregate.js';
import type { LoadedSet, Outcome } from '../../kernel/command.js';
import { notFound } from '../../kernel/errors.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { emitter, type Emitted } from '../../kernel/events.js';
import type { OrgDomain, OrgDomainEvent } from '../org-domain.js';
import { orgDomains, orgKind, type Org, type OrgEvent } from '../org.js';

export interface FoundDomain {
  readonly org: AggregateRecord<Org>;
  readonly entry: OrgDomain;
}

/** The organization (404 `org.not_found`) and its domain (404 `domain.not_found`). */
export function requireOrgDomain(loaded: LoadedSet, orgId: string, domain: string): FoundDomain {
  const org = loaded.get(orgKind, orgId).record;
  if (org === undefined) throw notFound('org.not_found', 'organization not found');
  const entry = orgDomains(org.state).find((d) => d.domain === domain);
  if (entry === undefined) throw notFound('domain.not_found', 'domain not found');
  return { org, entry };
}

/** An `org.domain.*` event on the organization's stream. */
export function domainEvent(orgId: string, creator: string, event: OrgDomainEvent): Emitted<OrgEvent, 'org'> {
  return emitter(orgKind, orgId, orgOwner(orgId), creator)(event);
}

/** Details of a domain after a command: of the event written, else of the domain as it is. */
export function domainDetailsAfter(outcome: Outcome, orgId: string, domain: string, entry: OrgDomain | undefined): ResourceDetails {
  const owner = orgOwner(orgId);
  const last = outcome.events[outcome.events.length - 1];
  if (last !== undefined) return { id: domain, sequence: last.position, changeDate: last.createdAt, resourceOwner: last.owner };
  return { id: domain, sequence: entry?.sequence ?? 0, changeDate: entry?.changedAt ?? 0, resourceOwner: owner };
}
