/** PatchProject: PATCH /resources/v3alpha/projects/{id}; absent fields stay unchanged. */
import { z } from 'zod';
import { patchProject } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject, resourceName } from './shared.js';

const input = z.object({
  id: resourceId,
  project: z
    .object({
      name: resourceName.optional(),
      projectRoleAssertion: z.boolean().optional(),
      projectRoleCheck: z.boolean().optional(),
      hasProjectCheck: z.boolean().optional(),
    })
    .optional(),
});

export const patchProjectRpc = defineRpc({
  method: PlatformProjects.method.patchProject,
  permission: 'authenticated', // project.write, checked in the project's organization
  async handle(request, call) {
    const { id, project } = parseWith(input, request);
    const current = await requireProject(call, id, 'project.write');
    const orgId = current.state.orgId;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), patchProject, { projectId: id, orgId, ...project }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
