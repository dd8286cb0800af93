/**
 * Index declarations of the organization-owned tables (kernel/indexes.ts): the sort columns
 * and filters their searches offer. Scope is the owning organization, so a search's permission
 * check per candidate needs no row. Text columns come twice: as written (sorting, exact and
 * prefix filters) and lower-cased (`_ci`, the IGNORE_CASE filters).
 */
import { defineIndexes, idTerm, type TableIndexes } from '../kernel/indexes.js';
import type { AggregateRecord } from '../kernel/aggregate.js';
import { applicationKind } from './application.js';
import { orgDomains, orgKind } from './org.js';
import { projectGrantKind } from './project-grant.js';
import { projectKind } from './project.js';
import { sessionKind } from './session.js';
import { displayNameOf, userKind, type User } from './user.js';

/** The columns every table sorts by: id, creation and change date. */
export function commonTerms<S>(): Record<'id' | 'created' | 'changed', (r: AggregateRecord<S>) => string | number> {
  return { id: (r) => idTerm(r.id), created: (r) => r.meta.createdAt, changed: (r) => r.meta.changedAt };
}

const lower = (value: string): string => value.toLowerCase();
const emailOf = (user: User): string | undefined => (user.type === 'human' ? user.email.address : undefined);

export const orgIndexes: TableIndexes = defineIndexes(orgKind, () => '', {
  ...commonTerms(),
  name: (r) => r.state.name,
  name_ci: (r) => lower(r.state.name),
  primary_domain: (r) => r.state.primaryDomain,
  primary_domain_ci: (r) => lower(r.state.primaryDomain),
  state: (r) => r.state.state,
  domain: (r) => orgDomains(r.state).map((d) => d.domain),
});

export const userIndexes: TableIndexes = defineIndexes(userKind, (r) => r.state.orgId, {
  ...commonTerms(),
  org: (r) => r.state.orgId,
  username: (r) => r.state.username,
  username_ci: (r) => lower(r.state.username),
  display_name: (r) => displayNameOf(r.state),
  display_name_ci: (r) => lower(displayNameOf(r.state)),
  // Machine users have no email: they sort as '' and are left out of the email filters' indexes.
  email_sort: (r) => emailOf(r.state) ?? '',
  email: (r) => emailOf(r.state),
  email_ci: (r) => {
    const email = emailOf(r.state);
    return email === undefined ? undefined : lower(email);
  },
  // The wire enums order active < inactive < locked and human < machine, like these names.
  state: (r) => r.state.state,
  type: (r) => r.state.type,
});

export const projectIndexes: TableIndexes = defineIndexes(projectKind, (r) => r.state.orgId, {
  ...commonTerms(),
  org: (r) => r.state.orgId,
  name: (r) => r.state.name,
  name_ci: (r) => lower(r.state.name),
  state: (r) => r.state.state,
});

export const applicationIndexes: TableIndexes = defineIndexes(applicationKind, (r) => r.state.orgId, {
  ...commonTerms(),
  org: (r) => r.state.orgId,
  project: (r) => r.state.projectId,
  name: (r) => r.state.name,
  name_ci: (r) => lower(r.state.name),
  client_id: (r) => r.state.clientId,
  type: (r) => r.state.config.type,
});

export const projectGrantIndexes: TableIndexes = defineIndexes(projectGrantKind, (r) => r.meta.owner.id, {
  ...commonTerms(),
  org: (r) => r.meta.owner.id,
  project: (r) => idTerm(r.state.projectId),
  granted_org: (r) => idTerm(r.state.grantedOrgId),
  state: (r) => r.state.state,
  role: (r) => r.state.roleKeys,
});

export const sessionIndexes: TableIndexes = defineIndexes(sessionKind, (r) => r.state.orgId, {
  ...commonTerms(),
  org: (r) => r.state.orgId,
  user: (r) => idTerm(r.state.userId),
  expires: (r) => r.state.expiresAt,
});
