/** PatchProjectRole: PATCH /resources/v3alpha/projects/{projectId}/roles/{key}; absent fields stay unchanged. */
import { z } from 'zod';
import { changeProjectRole } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject, resourceName } from './shared.js';

const input = z.object({
  projectId: resourceId,
  key: resourceId,
  role: z
    .object({ displayName: resourceName.optional(), group: z.string().trim().max(200, 'must be at most 200 characters').optional() })
    .optional(),
});

export const patchProjectRoleRpc = defineRpc({
  method: PlatformProjects.method.patchProjectRole,
  permission: 'authenticated', // project.role.write, checked in the project's organization
  async handle(request, call) {
    const { projectId, key, role } = parseWith(input, request);
    const project = await requireProject(call, projectId, 'project.role.write');
    const orgId = project.state.orgId;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), changeProjectRole, { projectId, orgId, key, ...role }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
