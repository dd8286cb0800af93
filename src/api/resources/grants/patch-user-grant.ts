/** PatchUserGrant: PATCH /resources/v3alpha/user_grants/{id}; absent fields stay unchanged. */
import { z } from 'zod';
import { changeUserGrant } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireUserGrant, roleKeysInput } from './shared.js';

const input = z.object({
  id: resourceId,
  userGrant: z.object({ roleKeys: z.object({ keys: roleKeysInput }).optional() }).optional(),
});

export const patchUserGrantRpc = defineRpc({
  method: PlatformGrants.method.patchUserGrant,
  permission: 'authenticated', // user.grant.write, checked in the user's organization
  async handle(request, call) {
    const { id, userGrant } = parseWith(input, request);
    const { grant, row, orgId, project } = await requireUserGrant(call, id, 'user.grant.write');
    const command = {
      grantId: id,
      userId: row.state.userId,
      orgId,
      projectId: grant.projectId,
      projectOrgId: project.state.orgId,
      projectGrantId: grant.projectGrantId,
      roleKeys: userGrant?.roleKeys?.keys ?? grant.roleKeys,
    };
    const details = await call.services.actors.ask(toOrgActor(call, orgId), changeUserGrant, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
