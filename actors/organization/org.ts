/**
 * The organization aggregate: name (unique per instance), domains (org-domain.ts) and the
 * primary domain (login-name suffix).
 */
import { orgEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { evolveDomains, generatedDomainEntry, type OrgDomain, type OrgDomainEvent } from './org-domain.js';

export interface Org {
  readonly name: string;
  /** One of `domains`, verified; login names end in `@` + this. */
  readonly primaryDomain: string;
  readonly state: 'active' | 'inactive';
  /** Absent on rows written before domains existed: read it through `orgDomains`. */
  readonly domains?: readonly OrgDomain[];
}

/** The organization's domains; a row from before domains existed has just its primary domain. */
export function orgDomains(org: Org): readonly OrgDomain[] {
  return org.domains ?? [generatedDomainEntry(org.primaryDomain, 0, 0)];
}

export const ORG_NAME_SCOPE = 'org.name';
export const ORG_DOMAIN_SCOPE = 'org.domain';

export type OrgEvent =
  | { type: 'org.added'; payload: { name: string; primaryDomain: string } }
  | { type: 'org.changed'; payload: { name: string } }
  | { type: 'org.removed'; payload: Record<string, never> }
  | OrgDomainEvent;

export const orgKind: AggregateKind<Org, OrgEvent, 'org'> = {
  type: 'org',
  table: 'orgs',
  events: orgEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'org.added':
        return {
          name: e.payload.name,
          primaryDomain: e.payload.primaryDomain,
          state: 'active',
          domains: [generatedDomainEntry(e.payload.primaryDomain, e.createdAt, e.position)],
        };
      case 'org.changed':
        return state && { ...state, name: e.payload.name };
      case 'org.removed':
        return undefined;
      case 'org.domain.added':
      case 'org.domain.changed':
      case 'org.domain.verification.added':
      case 'org.domain.verified':
      case 'org.domain.primary.set':
      case 'org.domain.removed':
        return (
          state && {
            ...state,
            domains: evolveDomains(orgDomains(state), e),
            ...(e.type === 'org.domain.primary.set' ? { primaryDomain: e.payload.domain } : {}),
          }
        );
      default:
        return state;
    }
  },
};

/** Claim value of an org name: names are unique regardless of case. */
export function orgNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/** The generated primary domain of a new organization: `<slug of name>.<instance domain>`. */
export function generatedOrgDomain(name: string, instanceDomain: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // drop combining marks: Ü → U
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug === '' ? 'org' : slug}.${instanceDomain}`;
}
