/** GetUserGrant: GET /resources/v3alpha/user_grants/{id}. */
import { z } from 'zod';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserGrant, toGetUserGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const getUserGrantRpc = defineRpc({
  method: PlatformGrants.method.getUserGrant,
  permission: 'authenticated', // user.grant.read, checked in the user's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { userGrant: toGetUserGrant(await requireUserGrant(call, id, 'user.grant.read')) };
  },
});
