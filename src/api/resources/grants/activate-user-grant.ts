/** ActivateUserGrant: POST /resources/v3alpha/user_grants/{id}/_activate; already active → success, nothing recorded. */
import { z } from 'zod';
import { changeUserGrantState } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireUserGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const activateUserGrantRpc = defineRpc({
  method: PlatformGrants.method.activateUserGrant,
  permission: 'authenticated', // user.grant.write, checked in the user's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { row, orgId } = await requireUserGrant(call, id, 'user.grant.write');
    const command = { grantId: id, userId: row.state.userId, orgId, action: 'activate' } as const;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), changeUserGrantState, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
