/** CreateProjectRole: POST /resources/v3alpha/projects/{projectId}/roles → 201; details.id is the key. */
import { z } from 'zod';
import { addProjectRole, ROLE_KEY_PATTERN } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject, resourceName } from './shared.js';

const input = z.object({
  projectId: resourceId,
  role: z.object(
    {
      key: z.string().regex(ROLE_KEY_PATTERN, 'must be 1..200 of A-Z a-z 0-9 _ . : -'),
      displayName: resourceName,
      group: z.string().trim().max(200, 'must be at most 200 characters'),
    },
    'required',
  ),
});

export const createProjectRoleRpc = defineRpc({
  method: PlatformProjects.method.createProjectRole,
  permission: 'authenticated', // project.role.write, checked in the project's organization
  created: true,
  async handle(request, call) {
    const { projectId, role } = parseWith(input, request);
    const project = await requireProject(call, projectId, 'project.role.write');
    const orgId = project.state.orgId;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), addProjectRole, { projectId, orgId, ...role }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
