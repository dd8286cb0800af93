/** GetUser: GET /resources/v3alpha/users/{id} (`user.read` in the user's organization). */
import { z } from 'zod';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readOrgOf, requireUserFor, toGetUser } from './shared.js';

const input = z.object({ id: resourceId });

export const getUserRpc = defineRpc({
  method: PlatformUsers.method.getUser,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const record = await requireUserFor(call, id, 'user.read');
    return { user: toGetUser(record, await readOrgOf(call, record.state.orgId)) };
  },
});
