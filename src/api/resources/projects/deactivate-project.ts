/** DeactivateProject: POST /resources/v3alpha/projects/{id}/_deactivate; already inactive → success, nothing recorded. */
import { z } from 'zod';
import { deactivateProject } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject } from './shared.js';

const input = z.object({ id: resourceId });

export const deactivateProjectRpc = defineRpc({
  method: PlatformProjects.method.deactivateProject,
  permission: 'authenticated', // project.write, checked in the project's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const current = await requireProject(call, id, 'project.write');
    const orgId = current.state.orgId;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), deactivateProject, { projectId: id, orgId }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
