/** Project read shapes, lookups and input schemas shared by the project operations. */
import { create } from '@bufbuild/protobuf';
import { z } from 'zod';
import { type AggregateRecord, detailsOf, notFound, type Project, projectKind, type ProjectRole } from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  GetProjectRoleSchema,
  GetProjectSchema,
  type GetProject,
  type GetProjectRole,
} from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp, toWireOwner } from '../../shared/convert.js';
import { createOrgReadFilter, orgExists, readOwned } from '../../shared/owned.js';

/** A project or app name: 1..200 characters after trimming. */
export const resourceName = z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters');

/** The org actor that owns (and serializes the commands of) an organization's resources. */
export function toOrgActor(call: CallContext, orgId: string) {
  return { kind: 'org', instanceId: call.instance.id, orgId } as const;
}

/**
 * The project with this id, if the caller may use it with `permission`: 404 when absent, of a
 * removed organization, or outside the ctx organization; 403 without the permission in its org
 * (or through a membership in the project itself).
 */
export async function requireProject(call: CallContext, id: string, permission: string): Promise<AggregateRecord<Project>> {
  const record = await readOwned(call, projectKind, id);
  if (record === undefined || (call.scope.type === 'org' && record.state.orgId !== call.scope.orgId)) {
    throw notFound('project.not_found', 'project not found');
  }
  await call.require(permission, record.state.orgId, record.id);
  return record;
}

/**
 * A per-request filter for searches: keeps rows of live organizations in which the caller holds
 * `permission`, or of projects in which a project membership grants it.
 */
export async function createProjectReadFilter(call: CallContext, permission: string): Promise<(orgId: string, projectId: string) => Promise<boolean>> {
  const inOrg = await createOrgReadFilter(call, permission);
  const byProject = new Map<string, boolean>();
  return async (orgId, projectId) => {
    if (await inOrg(orgId)) return true;
    let allowed = byProject.get(projectId);
    if (allowed === undefined) {
      allowed = (await orgExists(call, orgId)) && (await call.can(permission, undefined, projectId));
      byProject.set(projectId, allowed);
    }
    return allowed;
  };
}

export function toProjectState(project: Project): State {
  return project.state === 'active' ? State.EFFECTIVE_STATE_ACTIVE : State.EFFECTIVE_STATE_INACTIVE;
}

export function toGetProject(record: AggregateRecord<Project>): GetProject {
  const { name, projectRoleAssertion, projectRoleCheck, hasProjectCheck } = record.state;
  return create(GetProjectSchema, {
    details: toDetails(detailsOf(record)),
    project: { name, projectRoleAssertion, projectRoleCheck, hasProjectCheck },
    state: toProjectState(record.state),
    roleCount: record.state.roles.length,
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

export function toGetProjectRole(role: ProjectRole, project: AggregateRecord<Project>): GetProjectRole {
  return create(GetProjectRoleSchema, {
    details: {
      id: role.key,
      sequence: BigInt(role.sequence),
      ...(role.changedAt > 0 ? { changeDate: toTimestamp(role.changedAt) } : {}),
      resourceOwner: toWireOwner(project.meta.owner),
    },
    role: { key: role.key, displayName: role.displayName, group: role.group },
    ...(role.createdAt > 0 ? { creationDate: toTimestamp(role.createdAt) } : {}),
  });
}
