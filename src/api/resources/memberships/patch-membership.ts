/**
 * PatchMembership: PATCH /resources/v3alpha/memberships/{id}. `roles` replaces the list; empty
 * or absent (or the same set) changes nothing. Taking IAM_OWNER from the last instance owner
 * is 400 `membership.last_owner`.
 */
import { z } from 'zod';
import { changeMembership, detailsOf } from '../../../../actors/index.js';
import { PlatformMemberships } from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { roleList } from './roles-input.js';
import { dropsInstanceOwner, findOtherOwners, requireMembership } from './shared.js';

const input = z.object({ id: resourceId, membership: z.object({ roles: roleList }).optional() });

export const patchMembershipRpc = defineRpc({
  method: PlatformMemberships.method.patchMembership,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, membership } = parseWith(input, request);
    const current = await requireMembership(call, id, 'write');
    const roles = membership?.roles ?? [];
    if (roles.length === 0) return { details: toDetails(detailsOf(current)) };
    const otherOwners = dropsInstanceOwner(current.state, roles) ? await findOtherOwners(call, current.state.userId) : [];
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      changeMembership,
      { membershipId: id, roles, otherOwners },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
