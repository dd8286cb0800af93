/**
 * POST /resources/v3alpha/users/{id}/_verify_email and _verify_phone: an administrator marks a
 * human user's email address / phone number as verified (`user.write`).
 */
import { z } from 'zod';
import { verifyUserContact } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

type ActionMethod = typeof PlatformUsers.method.verifyEmail;

function defineVerifyRpc(method: ActionMethod, channel: 'email' | 'phone') {
  return defineRpc({
    method,
    permission: 'authenticated',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const user = await requireUserFor(call, id, 'user.write');
      const details = await call.services.actors.ask(
        userActor(call, user),
        verifyUserContact,
        { orgId: user.state.orgId, userId: id, channel },
        { creator: call.caller.userId },
      );
      return { details: toDetails(details) };
    },
  });
}

export const verifyEmailRpc = defineVerifyRpc(PlatformUsers.method.verifyEmail, 'email');
export const verifyPhoneRpc = defineVerifyRpc(PlatformUsers.method.verifyPhone, 'phone');
