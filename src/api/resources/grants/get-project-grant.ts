/** GetProjectGrant: GET /resources/v3alpha/project_grants/{id}. */
import { z } from 'zod';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireProjectGrant, toGetProjectGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const getProjectGrantRpc = defineRpc({
  method: PlatformGrants.method.getProjectGrant,
  permission: 'authenticated', // project.grant.read, checked in the project (or its organization)
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { projectGrant: toGetProjectGrant(await requireProjectGrant(call, id, 'project.grant.read')) };
  },
});
