/** DeleteProjectGrant: DELETE /resources/v3alpha/project_grants/{id}; user grants relying on it grant nothing afterwards. */
import { z } from 'zod';
import { removeProjectGrant } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireProjectGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteProjectGrantRpc = defineRpc({
  method: PlatformGrants.method.deleteProjectGrant,
  permission: 'authenticated', // project.grant.delete, checked in the project (or its organization)
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { record } = await requireProjectGrant(call, id, 'project.grant.delete');
    const orgId = record.meta.owner.id;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeProjectGrant, { grantId: id, orgId }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
