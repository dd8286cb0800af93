/** CreateProjectGrant: POST /resources/v3alpha/project_grants → 201; belongs to the project's organization. */
import { z } from 'zod';
import { addProjectGrant } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireProject, toOrgActor } from '../projects/shared.js';
import { roleKeysInput } from './shared.js';

const input = z.object({
  projectGrant: z.object({ projectId: resourceId, grantedOrgId: resourceId, roleKeys: roleKeysInput }, 'required'),
});

export const createProjectGrantRpc = defineRpc({
  method: PlatformGrants.method.createProjectGrant,
  permission: 'authenticated', // project.grant.write, checked in the project (or its organization)
  created: true,
  async handle(request, call) {
    const { projectGrant } = parseWith(input, request);
    const project = await requireProject(call, projectGrant.projectId, 'project.grant.write');
    const orgId = project.state.orgId;
    const grantId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(toOrgActor(call, orgId), addProjectGrant, { grantId, orgId, ...projectGrant }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
