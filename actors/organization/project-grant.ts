/**
 * Project grants: a project shared with another organization, with a subset of the project's
 * roles. Owned by the project's organization; unique per (project, granted organization),
 * claimed under `project.grant`. Role keys a project no longer has are filtered out when read
 * (`effectiveGrantRoles`), not rewritten: removing a project role records no grant events.
 */
import { projectGrantEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { LoadedSet } from '../kernel/command.js';
import { notFound, validationFailed, type ErrorCode } from '../kernel/errors.js';
import { orgKind } from './org.js';
import type { Project } from './project.js';

export type GrantState = 'active' | 'inactive';

export interface ProjectGrant {
  readonly projectId: string;
  readonly grantedOrgId: string;
  readonly roleKeys: readonly string[];
  readonly state: GrantState;
}

export const PROJECT_GRANT_SCOPE = 'project.grant';

/** Role keys a grant may list (a project has at most 1000 roles). */
export const MAX_GRANT_ROLE_KEYS = 1000;

/** Claim value of a project grant: one per (project, granted organization). */
export function projectGrantKey(projectId: string, grantedOrgId: string): string {
  return `${projectId}:${grantedOrgId}`;
}

export type ProjectGrantEvent =
  | { type: 'project.grant.added'; payload: { projectId: string; grantedOrgId: string; roleKeys: string[] } }
  | { type: 'project.grant.changed'; payload: { roleKeys: string[] } }
  | { type: 'project.grant.deactivated'; payload: Record<string, never> }
  | { type: 'project.grant.reactivated'; payload: Record<string, never> }
  | { type: 'project.grant.removed'; payload: Record<string, never> };

export const projectGrantKind: AggregateKind<ProjectGrant, ProjectGrantEvent, 'project.grant'> = {
  type: 'project.grant',
  table: 'project_grants',
  events: projectGrantEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'project.grant.added':
        return { ...e.payload, state: 'active' };
      case 'project.grant.changed':
        return state && { ...state, roleKeys: e.payload.roleKeys };
      case 'project.grant.deactivated':
        return state && { ...state, state: 'inactive' };
      case 'project.grant.reactivated':
        return state && { ...state, state: 'active' };
      case 'project.grant.removed':
        return undefined;
      default:
        return state;
    }
  },
};

/** Sorted, de-duplicated role keys. */
export function normalizeRoleKeys(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}

/**
 * Throws a 400 naming `field` (with `code`) when a key is not in `allowed`; `what` says
 * where the keys had to come from (the keys themselves are not echoed).
 */
export function requireRoleSubset(keys: readonly string[], allowed: ReadonlySet<string>, field: string, code: ErrorCode, what: string): void {
  const missing = keys.filter((k) => !allowed.has(k));
  if (missing.length > 0) throw validationFailed([{ field, description: `every key must be a role of ${what}` }], code);
  if (keys.length > MAX_GRANT_ROLE_KEYS) throw validationFailed([{ field, description: `at most ${MAX_GRANT_ROLE_KEYS} role keys` }], code);
}

/** The role keys of a project. */
export function projectRoleKeys(project: Project): Set<string> {
  return new Set(project.roles.map((r) => r.key));
}

/** The grant's role keys that the project still has (read-time cascade of role removals). */
export function effectiveGrantRoles(grant: ProjectGrant, project: Project | undefined): string[] {
  if (project === undefined) return [];
  const keys = projectRoleKeys(project);
  return grant.roleKeys.filter((k) => keys.has(k));
}

/**
 * The project grant of a command: it must exist, belong to the organization (the project's)
 * and that organization must exist. Throws `project_grant.not_found`.
 */
export function requireLiveProjectGrant(loaded: LoadedSet, orgId: string, grantId: string): AggregateRecord<ProjectGrant> {
  const grant = loaded.get(projectGrantKind, grantId).record;
  if (grant === undefined || grant.meta.owner.id !== orgId || loaded.get(orgKind, orgId).record === undefined) {
    throw notFound('project_grant.not_found', 'project grant not found');
  }
  return grant;
}
