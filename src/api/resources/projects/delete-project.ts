/** DeleteProject: DELETE /resources/v3alpha/projects/{id}; removes the project's applications too. */
import { z } from 'zod';
import { applicationKind, removeProject } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteProjectRpc = defineRpc({
  method: PlatformProjects.method.deleteProject,
  permission: 'authenticated', // project.delete, checked in the project's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const current = await requireProject(call, id, 'project.delete');
    const orgId = current.state.orgId;
    const appIds = await appIdsOf(call, id);
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeProject, { projectId: id, orgId, appIds }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});

async function appIdsOf(call: CallContext, projectId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const app of call.services.actors.scanRecords(call.instance.id, applicationKind)) {
    if (app.state.projectId === projectId) ids.push(app.id);
  }
  return ids;
}
