/** The organization aggregate: name (unique per instance) and primary domain (login-name suffix). */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

export interface Org {
  readonly name: string;
  readonly primaryDomain: string;
  readonly state: 'active' | 'inactive';
}

export const ORG_NAME_SCOPE = 'org.name';
export const ORG_DOMAIN_SCOPE = 'org.domain';

export type OrgEvent =
  | { type: 'org.added'; payload: { name: string; primaryDomain: string } }
  | { type: 'org.changed'; payload: { name: string } }
  | { type: 'org.removed'; payload: Record<string, never> };

export const orgKind: AggregateKind<Org> = {
  type: 'org',
  table: 'orgs',
  evolve(state, event: StoredEvent) {
    const e = event as unknown as OrgEvent;
    switch (e.type) {
      case 'org.added':
        return { name: e.payload.name, primaryDomain: e.payload.primaryDomain, state: 'active' };
      case 'org.changed':
        return state && { ...state, name: e.payload.name };
      case 'org.removed':
        return undefined;
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
