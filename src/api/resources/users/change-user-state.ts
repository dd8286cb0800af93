/**
 * The lifecycle side effects, one RPC each: POST /resources/v3alpha/users/{id}/_activate,
 * _deactivate, _lock, _unlock (`user.write` in the user's organization). Asking for the
 * current state succeeds without a new sequence.
 */
import { z } from 'zod';
import { changeUserState, type UserStateAction } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

type ActionMethod = typeof PlatformUsers.method.activateUser;

function defineStateRpc(method: ActionMethod, action: UserStateAction) {
  return defineRpc({
    method,
    permission: 'authenticated',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const user = await requireUserFor(call, id, 'user.write');
      const details = await call.services.actors.ask(
        userActor(call, user),
        changeUserState,
        { orgId: user.state.orgId, userId: id, action },
        { creator: call.caller.userId },
      );
      return { details: toDetails(details) };
    },
  });
}

export const activateUserRpc = defineStateRpc(PlatformUsers.method.activateUser, 'reactivate');
export const deactivateUserRpc = defineStateRpc(PlatformUsers.method.deactivateUser, 'deactivate');
export const lockUserRpc = defineStateRpc(PlatformUsers.method.lockUser, 'lock');
export const unlockUserRpc = defineStateRpc(PlatformUsers.method.unlockUser, 'unlock');
