/** GetProject: GET /resources/v3alpha/projects/{id}. */
import { z } from 'zod';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireProject, toGetProject } from './shared.js';

const input = z.object({ id: resourceId });

export const getProjectRpc = defineRpc({
  method: PlatformProjects.method.getProject,
  permission: 'authenticated', // project.read, checked in the project's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { project: toGetProject(await requireProject(call, id, 'project.read')) };
  },
});
