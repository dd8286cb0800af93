/**
 * The shape of the users' `/_action` RPCs (POST /resources/v3alpha/users/{id}/_…): the id in
 * the path, `user.write` in the user's organization, one command on the user, its details back.
 */
import { z } from 'zod';
import type { CommandHandler, ResourceDetails } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

type UserActionMethod = typeof PlatformUsers.method.activateUser | typeof PlatformUsers.method.verifyEmail;
interface UserTarget {
  readonly orgId: string;
  readonly userId: string;
}

export function defineUserActionRpc<C extends UserTarget>(method: UserActionMethod, handler: CommandHandler<C, ResourceDetails>, fields: Omit<C, keyof UserTarget>) {
  return defineRpc({
    method,
    permission: 'authenticated',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const user = await requireUserFor(call, id, 'user.write');
      const command = { ...fields, orgId: user.state.orgId, userId: id } as C;
      const details = await call.services.actors.ask(userActor(call, user), handler, command, { creator: call.caller.userId });
      return { details: toDetails(details) };
    },
  });
}
