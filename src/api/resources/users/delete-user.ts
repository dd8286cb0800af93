/** DeleteUser: DELETE /resources/v3alpha/users/{id}; frees the username and revokes its tokens. */
import { z } from 'zod';
import { removeUser } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteUserRpc = defineRpc({
  method: PlatformUsers.method.deleteUser,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.delete');
    const details = await call.services.actors.ask(userActor(call, user), removeUser, { orgId: user.state.orgId, userId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
