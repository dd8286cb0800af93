/** DeleteUserGrant: DELETE /resources/v3alpha/user_grants/{id}. */
import { z } from 'zod';
import { removeUserGrant } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireUserGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteUserGrantRpc = defineRpc({
  method: PlatformGrants.method.deleteUserGrant,
  permission: 'authenticated', // user.grant.delete, checked in the user's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { row, orgId } = await requireUserGrant(call, id, 'user.grant.delete');
    const command = { grantId: id, userId: row.state.userId, orgId };
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeUserGrant, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
