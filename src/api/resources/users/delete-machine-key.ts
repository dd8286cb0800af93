/** DeleteMachineKey: DELETE /resources/v3alpha/users/{id}/keys/{keyId} (`user.credential.write`). */
import { z } from 'zod';
import { removeMachineKey } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId, keyId: resourceId });

export const deleteMachineKeyRpc = defineRpc({
  method: PlatformUsers.method.deleteMachineKey,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, keyId } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const details = await call.services.actors.ask(
      userActor(call, user),
      removeMachineKey,
      { orgId: user.state.orgId, userId: id, keyId },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
