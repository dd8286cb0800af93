/** GetMembership: GET /resources/v3alpha/memberships/{id} (id `<context type>:<context id>:<user id>`). */
import { z } from 'zod';
import { PlatformMemberships } from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireMembership, toGetMembership } from './shared.js';

const input = z.object({ id: resourceId });

export const getMembershipRpc = defineRpc({
  method: PlatformMemberships.method.getMembership,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { membership: toGetMembership(await requireMembership(call, id, 'read')) };
  },
});
