/** Grant read shapes, lookups and input schemas shared by the PlatformGrants operations. */
import { create } from '@bufbuild/protobuf';
import { z } from 'zod';
import {
  type AggregateRecord,
  detailsOf,
  notFound,
  type Project,
  type ProjectGrant,
  projectGrantKind,
  projectKind,
  ROLE_KEY_PATTERN,
  USER_GRANT_ID_SCOPE,
  type UserGrant,
  userGrantRoleKeys,
  type UserGrants,
  userGrantsKind,
  userKind,
} from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { GetProjectGrantSchema, GetUserGrantSchema, type GetProjectGrant, type GetUserGrant } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp, toWireOwner } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';

/** At most 1000 role keys of A-Z a-z 0-9 _ . : - (1..200 each). */
export const roleKeysInput = z.array(z.string().regex(ROLE_KEY_PATTERN, 'must be 1..200 of A-Z a-z 0-9 _ . : -')).max(1000, 'at most 1000 role keys');

export interface ProjectGrantView {
  readonly record: AggregateRecord<ProjectGrant>;
  readonly project: AggregateRecord<Project>;
}

/**
 * The project grant with this id, if the caller may use it with `permission` (in the
 * project's organization, or through a membership in the project): 404 when absent, when its
 * project or organization was removed, or outside the ctx organization.
 */
export async function requireProjectGrant(call: CallContext, id: string, permission: string): Promise<ProjectGrantView> {
  const record = await readOwned(call, projectGrantKind, id);
  const project = record && (await call.services.actors.readRecord(call.instance.id, projectKind, record.state.projectId));
  if (record === undefined || project === undefined || (call.scope.type === 'org' && record.meta.owner.id !== call.scope.orgId)) {
    throw notFound('project_grant.not_found', 'project grant not found');
  }
  await call.require(permission, record.meta.owner.id, record.state.projectId);
  return { record, project };
}

export interface UserGrantView {
  readonly row: AggregateRecord<UserGrants>;
  readonly grant: UserGrant;
  /** The user's organization, which owns the grant. */
  readonly orgId: string;
  readonly project: AggregateRecord<Project>;
  /** The grant's keys the project (and the project grant) still has. */
  readonly roleKeys: readonly string[];
}

/**
 * The user grant with this id, if the caller holds `permission` in the user's organization:
 * 404 when absent, when its user, project or organization is gone, or outside the ctx org.
 */
export async function requireUserGrant(call: CallContext, id: string, permission: string): Promise<UserGrantView> {
  const view = await readUserGrant(call, id);
  if (view === undefined || (call.scope.type === 'org' && view.orgId !== call.scope.orgId)) throw notFound('user_grant.not_found', 'user grant not found');
  await call.require(permission, view.orgId);
  return view;
}

async function readUserGrant(call: CallContext, id: string): Promise<UserGrantView | undefined> {
  const actors = call.services.actors;
  const userId = await actors.findUnique(call.instance.id, USER_GRANT_ID_SCOPE, id);
  if (userId === undefined) return undefined;
  const row = await readOwned(call, userGrantsKind, userId);
  const grant = row?.state.grants.find((g) => g.id === id);
  if (row === undefined || grant === undefined) return undefined;
  const user = await actors.readRecord(call.instance.id, userKind, userId);
  const project = await readOwned(call, projectKind, grant.projectId);
  if (user === undefined || user.state.orgId !== row.state.orgId || project === undefined) return undefined;
  const projectGrant = grant.projectGrantId === '' ? undefined : await actors.readRecord(call.instance.id, projectGrantKind, grant.projectGrantId);
  const roleKeys = displayedKeys(grant, project, projectGrant);
  return { row, grant, orgId: row.state.orgId, project, roleKeys };
}

/** The keys shown for a user grant: cut to the project's roles and the project grant's (none once it is gone). */
export function displayedKeys(grant: UserGrant, project: AggregateRecord<Project>, projectGrant: AggregateRecord<ProjectGrant> | undefined): string[] {
  if (grant.projectGrantId !== '' && projectGrant === undefined) return [];
  return userGrantRoleKeys(
    grant,
    project.state.roles.map((r) => r.key),
    projectGrant?.state,
  );
}

export function toGrantState(state: 'active' | 'inactive'): State {
  return state === 'active' ? State.EFFECTIVE_STATE_ACTIVE : State.EFFECTIVE_STATE_INACTIVE;
}

export function toGetProjectGrant({ record, project }: ProjectGrantView): GetProjectGrant {
  const keys = new Set(project.state.roles.map((r) => r.key));
  const { projectId, grantedOrgId } = record.state;
  return create(GetProjectGrantSchema, {
    details: toDetails(detailsOf(record)),
    projectGrant: { projectId, grantedOrgId, roleKeys: record.state.roleKeys.filter((k) => keys.has(k)) },
    state: toGrantState(record.state.state),
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

export function toGetUserGrant(view: UserGrantView): GetUserGrant {
  const { grant, row } = view;
  return create(GetUserGrantSchema, {
    details: {
      id: grant.id,
      sequence: BigInt(grant.sequence),
      ...(grant.changedAt > 0 ? { changeDate: toTimestamp(grant.changedAt) } : {}),
      resourceOwner: toWireOwner(row.meta.owner),
    },
    userGrant: { userId: row.state.userId, projectId: grant.projectId, projectGrantId: grant.projectGrantId, roleKeys: [...view.roleKeys] },
    state: toGrantState(grant.state),
    projectOrgId: view.project.state.orgId,
    ...(grant.createdAt > 0 ? { creationDate: toTimestamp(grant.createdAt) } : {}),
  });
}
