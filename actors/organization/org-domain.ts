/**
 * Organization domains, kept inside the org aggregate: a handful per organization, each
 * claimed instance-wide under `org.domain` (domain → org id), which resolves `ctx.orgDomain`
 * and login names. The org row's `primaryDomain` stays the source of truth for login names;
 * a domain is primary exactly when it equals it. The generated domain of `org.added` is
 * the first entry, verified.
 */
import type { Recorded } from '../kernel/events.js';

export type DomainValidationType = 'dns' | 'http';

export interface OrgDomain {
  /** Lower-case host name; the resource id of the domain. */
  readonly domain: string;
  readonly isVerified: boolean;
  readonly validationType: DomainValidationType;
  /** The pending challenge token ('' when none): shown only by `_generate_validation`. */
  readonly validationToken: string;
  readonly createdAt: number;
  readonly changedAt: number;
  /** Position of the domain's last event (Details.sequence). */
  readonly sequence: number;
}

/** Domains an organization may hold (a row-size bound; the generated domain counts). */
export const MAX_ORG_DOMAINS = 100;

/** The DNS name whose TXT record must hold the token. */
export function dnsChallengeName(domain: string): string {
  return `_platform-challenge.${domain}`;
}

/** The path (on the domain) whose file must hold the token. */
export function httpChallengePath(token: string): string {
  return `/.well-known/platform-challenge/${token}.txt`;
}

export type OrgDomainEvent =
  | { type: 'org.domain.added'; payload: { domain: string; validationType: DomainValidationType } }
  | { type: 'org.domain.changed'; payload: { domain: string; validationType: DomainValidationType } }
  | { type: 'org.domain.verification.added'; payload: { domain: string; validationType: DomainValidationType; token: string } }
  | { type: 'org.domain.verified'; payload: { domain: string } }
  | { type: 'org.domain.primary.set'; payload: { domain: string } }
  | { type: 'org.domain.removed'; payload: { domain: string } };

/** The generated domain of a new organization: verified, and primary through the org row. */
export function generatedDomainEntry(domain: string, at: number, sequence: number): OrgDomain {
  return { domain, isVerified: true, validationType: 'dns', validationToken: '', createdAt: at, changedAt: at, sequence };
}

/** Folds one `org.domain.*` event into the domain list. */
export function evolveDomains(domains: readonly OrgDomain[], e: Recorded<OrgDomainEvent>): readonly OrgDomain[] {
  const touch = (d: OrgDomain, change: Partial<OrgDomain>): OrgDomain => ({ ...d, ...change, changedAt: e.createdAt, sequence: e.position });
  const update = (change: Partial<OrgDomain>) => domains.map((d) => (d.domain === e.payload.domain ? touch(d, change) : d));
  switch (e.type) {
    case 'org.domain.added':
      return [
        ...domains,
        {
          domain: e.payload.domain,
          isVerified: false,
          validationType: e.payload.validationType,
          validationToken: '',
          createdAt: e.createdAt,
          changedAt: e.createdAt,
          sequence: e.position,
        },
      ];
    case 'org.domain.changed':
      return update({ validationType: e.payload.validationType });
    case 'org.domain.verification.added':
      return update({ validationType: e.payload.validationType, validationToken: e.payload.token });
    case 'org.domain.verified':
      return update({ isVerified: true, validationToken: '' });
    case 'org.domain.primary.set':
      return update({});
    case 'org.domain.removed':
      return domains.filter((d) => d.domain !== e.payload.domain);
    default:
      return domains;
  }
}
