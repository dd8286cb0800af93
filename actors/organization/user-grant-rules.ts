/**
 * Rules shared by the user grant commands: the grant's user, project and (for a user of
 * another organization) project grant, and which role keys the grant may hold.
 */
import type { AggregateRecord } from '../kernel/aggregate.js';
import type { AggregateRef, LoadedSet, Outcome } from '../kernel/command.js';
import { ref } from '../kernel/command.js';
import { notFound, validationFailed } from '../kernel/errors.js';
import type { ResourceDetails } from '../kernel/owner.js';
import type { Owner } from '../kernel/ports.js';
import { orgKind } from './org.js';
import { projectKind, requireLiveProject } from './project.js';
import { projectGrantKind, projectRoleKeys, requireRoleSubset } from './project-grant.js';
import { userKind } from './user.js';
import { userGrantsKind, type UserGrant, type UserGrants } from './user-grants.js';

/** What a user grant refers to: its user (in `orgId`) and project (in `projectOrgId`). */
export interface UserGrantTarget {
  readonly userId: string;
  /** The user's organization, which owns the grant. */
  readonly orgId: string;
  readonly projectId: string;
  readonly projectOrgId: string;
  /** '' when the user's organization owns the project. */
  readonly projectGrantId: string;
}

/** The aggregates a user grant command reads. */
export function userGrantRefs(c: UserGrantTarget): AggregateRef[] {
  const refs = [ref(userGrantsKind, c.userId), ref(userKind, c.userId), ref(orgKind, c.orgId), ref(projectKind, c.projectId), ref(orgKind, c.projectOrgId)];
  return c.projectGrantId === '' ? refs : [...refs, ref(projectGrantKind, c.projectGrantId)];
}

/** The user must exist in the (existing) organization. Throws `user.not_found`. */
export function requireGrantUser(loaded: LoadedSet, orgId: string, userId: string): void {
  const user = loaded.get(userKind, userId).record;
  if (user === undefined || user.state.orgId !== orgId || loaded.get(orgKind, orgId).record === undefined) {
    throw notFound('user.not_found', 'user not found');
  }
}

/**
 * Checks that `roleKeys` (normalized) may be granted: the project is live, every key is a
 * project role, and a user of another organization needs that organization's grant of the
 * project, whose (current) roles must cover the keys. `field` prefixes the violation paths.
 */
export function checkGrantableRoles(loaded: LoadedSet, c: UserGrantTarget, roleKeys: readonly string[], field: string, rolesField = `${field}.roleKeys`): void {
  const project = requireLiveProject(loaded, c.projectOrgId, c.projectId);
  const projectKeys = projectRoleKeys(project.state);
  requireRoleSubset(roleKeys, projectKeys, rolesField, 'user_grant.role_not_found', 'the project');
  if (c.orgId === c.projectOrgId) {
    if (c.projectGrantId !== '') {
      throw validationFailed([{ field: `${field}.projectGrantId`, description: "must be empty for a user of the project's organization" }], 'user_grant.project_grant_invalid');
    }
    return;
  }
  if (c.projectGrantId === '') {
    throw validationFailed([{ field: `${field}.projectGrantId`, description: "required for a user outside the project's organization" }], 'user_grant.project_grant_required');
  }
  const grant = loaded.get(projectGrantKind, c.projectGrantId).record;
  if (grant === undefined || grant.meta.owner.id !== c.projectOrgId || grant.state.projectId !== c.projectId || grant.state.grantedOrgId !== c.orgId) {
    throw validationFailed([{ field: `${field}.projectGrantId`, description: "must be the user's organization's grant of the project" }], 'user_grant.project_grant_invalid');
  }
  const granted = new Set(grant.state.roleKeys.filter((k) => projectKeys.has(k)));
  requireRoleSubset(roleKeys, granted, rolesField, 'user_grant.role_not_granted', 'the project grant');
}

/** The user's grant with this id. Throws `user_grant.not_found`. */
export function requireUserGrant(loaded: LoadedSet, orgId: string, userId: string, grantId: string): { row: AggregateRecord<UserGrants>; grant: UserGrant } {
  const row = loaded.get(userGrantsKind, userId).record;
  const grant = row?.state.grants.find((g) => g.id === grantId);
  const user = loaded.get(userKind, userId).record;
  if (row === undefined || grant === undefined || row.state.orgId !== orgId || user === undefined || loaded.get(orgKind, orgId).record === undefined) {
    throw notFound('user_grant.not_found', 'user grant not found');
  }
  return { row, grant };
}

/** Details of one user grant: its own sequence and change date (a no-op answers the current ones). */
export function userGrantDetails(outcome: Outcome, grant: { id: string; sequence: number; changedAt: number }, owner: Owner): ResourceDetails {
  const last = outcome.events[outcome.events.length - 1];
  if (last !== undefined) return { id: grant.id, sequence: last.position, changeDate: last.createdAt, resourceOwner: last.owner };
  return { id: grant.id, sequence: grant.sequence, changeDate: grant.changedAt, resourceOwner: owner };
}

