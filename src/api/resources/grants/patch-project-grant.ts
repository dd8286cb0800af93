/** PatchProjectGrant: PATCH /resources/v3alpha/project_grants/{id}; absent fields stay unchanged. */
import { z } from 'zod';
import { changeProjectGrant } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireProjectGrant, roleKeysInput } from './shared.js';

const input = z.object({
  id: resourceId,
  projectGrant: z.object({ roleKeys: z.object({ keys: roleKeysInput }).optional() }).optional(),
});

export const patchProjectGrantRpc = defineRpc({
  method: PlatformGrants.method.patchProjectGrant,
  permission: 'authenticated', // project.grant.write, checked in the project (or its organization)
  async handle(request, call) {
    const { id, projectGrant } = parseWith(input, request);
    const { record } = await requireProjectGrant(call, id, 'project.grant.write');
    const orgId = record.meta.owner.id;
    const roleKeys = projectGrant?.roleKeys?.keys ?? record.state.roleKeys;
    const command = { grantId: id, projectId: record.state.projectId, orgId, roleKeys };
    const details = await call.services.actors.ask(toOrgActor(call, orgId), changeProjectGrant, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
