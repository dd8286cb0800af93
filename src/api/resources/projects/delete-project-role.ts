/** DeleteProjectRole: DELETE /resources/v3alpha/projects/{projectId}/roles/{key}. */
import { z } from 'zod';
import { removeProjectRole } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject } from './shared.js';

const input = z.object({ projectId: resourceId, key: resourceId });

export const deleteProjectRoleRpc = defineRpc({
  method: PlatformProjects.method.deleteProjectRole,
  permission: 'authenticated', // project.role.delete, checked in the project's organization
  async handle(request, call) {
    const { projectId, key } = parseWith(input, request);
    const project = await requireProject(call, projectId, 'project.role.delete');
    const orgId = project.state.orgId;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeProjectRole, { projectId, orgId, key }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
