/** DeleteMembership: DELETE /resources/v3alpha/memberships/{id}; the last instance owner stays (400 `membership.last_owner`). */
import { z } from 'zod';
import { removeMembership } from '../../../../actors/index.js';
import { PlatformMemberships } from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { dropsInstanceOwner, findOtherOwners, requireMembership } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteMembershipRpc = defineRpc({
  method: PlatformMemberships.method.deleteMembership,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const current = await requireMembership(call, id, 'delete');
    const otherOwners = dropsInstanceOwner(current.state, undefined) ? await findOtherOwners(call, current.state.userId) : [];
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      removeMembership,
      { membershipId: id, otherOwners },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
