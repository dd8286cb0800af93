/**
 * Index declarations of the organization-owned tables (kernel/indexes.ts): the sort columns
 * and filters their searches offer. Scope is the owning organization, so a search's permission
 * check per candidate needs no row. Text columns come twice: as written (sorting, exact and
 * prefix filters) and lower-cased (`_ci`, the IGNORE_CASE filters).
 */
import { defineIndexes, defineSubIndexes, idTerm, numberTerm, type TableIndexes } from '../kernel/indexes.js';
import type { AggregateRecord } from '../kernel/aggregate.js';
import { type AppKey, type Application, applicationKind } from './application.js';
import type { OrgDomain } from './org-domain.js';
import { type Org, orgDomains, orgKind } from './org.js';
import { projectGrantKind } from './project-grant.js';
import { type Project, type ProjectRole, projectKind } from './project.js';
import { sessionKind } from './session.js';
import { type UserGrant, type UserGrants, userGrantsKind } from './user-grants.js';
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
  // No index of the organization's domains here: SearchDomains walks org_domains (below), no
  // organization search filters by them (one key per domain per write, never read).
});

export const userIndexes: TableIndexes = defineIndexes(userKind, (r) => r.state.orgId, {
  ...commonTerms(),
  org: (r) => r.state.orgId,
  username: (r) => r.state.username,
  username_ci: (r) => lower(r.state.username),
  display_name: (r) => displayNameOf(r.state),
  display_name_ci: (r) => lower(displayNameOf(r.state)),
  // Machine users have no email: they sort as ''. The case-sensitive email filters walk this
  // index too (a human's terms are the same; a filter value of '' goes to email_ci, which
  // holds humans only: search-users.ts), so no second index holds the same keys.
  email_sort: (r) => emailOf(r.state) ?? '',
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

/*
 * Sub-row tables (kernel/indexes.ts defineSubIndexes): entries inside one row, indexed each as a
 * row of its own with id `<parent id>/<key>` and the `parent` index first.
 */

const flag = (value: boolean): string => numberTerm(value ? 1 : 0);

/** An organization's domains (rows from before domains existed: the generated primary domain, dated like the org). */
export const orgDomainIndexes: TableIndexes = defineSubIndexes<Org, OrgDomain>(
  orgKind,
  { name: 'org_domains', parent: 'summary' },
  (r) => orgDomains(r.state).map((item) => ({ key: item.domain, item })),
  (r) => r.parent.id,
  {
    created: (r) => (r.item.createdAt > 0 ? r.item.createdAt : r.parent.meta.createdAt),
    changed: (r) => (r.item.changedAt > 0 ? r.item.changedAt : r.parent.meta.changedAt),
    domain: (r) => r.item.domain,
    domain_ci: (r) => lower(r.item.domain),
    org: (r) => idTerm(r.parent.id),
    verified: (r) => flag(r.item.isVerified),
    primary: (r) => flag(r.parent.state.primaryDomain === r.item.domain),
  },
);

/** Users' grants; scope is the user's organization, which owns them. */
export const userGrantIndexes: TableIndexes = defineSubIndexes<UserGrants, UserGrant>(
  userGrantsKind,
  { name: 'user_grant_entries', parent: 'summary' },
  (r) => r.state.grants.map((item) => ({ key: item.id, item })),
  (r) => r.parent.state.orgId,
  {
    id: (r) => idTerm(r.item.id),
    created: (r) => r.item.createdAt,
    changed: (r) => r.item.changedAt,
    org: (r) => idTerm(r.parent.state.orgId),
    user: (r) => idTerm(r.parent.state.userId),
    project: (r) => idTerm(r.item.projectId),
    project_grant: (r) => r.item.projectGrantId,
    // The keys as granted; the search checks those the project still has on its candidates.
    role: (r) => r.item.roleKeys,
    state: (r) => r.item.state,
  },
);

/** An application's keys. */
export const appKeyIndexes: TableIndexes = defineSubIndexes<Application, AppKey>(
  applicationKind,
  { name: 'app_keys', parent: 'walked' },
  (r) => r.state.keys.map((item) => ({ key: item.id, item })),
  (r) => r.parent.state.orgId,
  {
    created: (r) => r.item.createdAt,
    key_id: (r) => r.item.id,
  },
);

/** A project's roles. */
export const projectRoleIndexes: TableIndexes = defineSubIndexes<Project, ProjectRole>(
  projectKind,
  { name: 'project_roles', parent: 'walked' },
  (r) => r.state.roles.map((item) => ({ key: item.key, item })),
  (r) => r.parent.state.orgId,
  {
    created: (r) => r.item.createdAt,
    changed: (r) => r.item.changedAt,
    key: (r) => r.item.key,
    key_ci: (r) => lower(r.item.key),
    display_name: (r) => r.item.displayName,
    display_name_ci: (r) => lower(r.item.displayName),
    group: (r) => r.item.group,
    group_ci: (r) => lower(r.item.group),
  },
);

