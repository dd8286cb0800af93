/** CreateProject: POST /resources/v3alpha/projects → 201; lands in the ctx org, else the default org. */
import { z } from 'zod';
import { createProject } from '../../../../actors/index.js';
import { PlatformProjects } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { targetOrgId } from '../../shared/owned.js';
import { parseWith } from '../../shared/validate.js';
import { toOrgActor, resourceName } from './shared.js';

const input = z.object({
  project: z.object(
    { name: resourceName, projectRoleAssertion: z.boolean(), projectRoleCheck: z.boolean(), hasProjectCheck: z.boolean() },
    'required',
  ),
});

export const createProjectRpc = defineRpc({
  method: PlatformProjects.method.createProject,
  permission: 'authenticated', // project.create, checked in the target organization
  created: true,
  async handle(request, call) {
    const orgId = await targetOrgId(call);
    await call.require('project.create', orgId);
    const { project } = parseWith(input, request);
    const projectId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(toOrgActor(call, orgId), createProject, { projectId, orgId, ...project }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
