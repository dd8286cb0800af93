/**
 * DeleteUser: DELETE /resources/v3alpha/users/{id}; frees the username and revokes its tokens.
 * The last instance owner cannot be deleted (400 `membership.last_owner`).
 */
import { z } from 'zod';
import { INSTANCE_OWNER_ROLE, membershipId, membershipKind, type OwnerCandidate, removeUser } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { findOtherOwners } from '../memberships/shared.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteUserRpc = defineRpc({
  method: PlatformUsers.method.deleteUser,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.delete');
    const otherOwners = await otherOwnersIfOwner(call, id);
    const details = await call.services.actors.ask(
      userActor(call, user),
      removeUser,
      { orgId: user.state.orgId, userId: id, otherOwners },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

/**
 * Only an instance owner's removal needs the other owners (a scan); for everyone else the list
 * is empty (should the user have become an owner meanwhile, the command refuses: the safe side).
 */
async function otherOwnersIfOwner(call: CallContext, userId: string): Promise<OwnerCandidate[]> {
  const membership = await call.services.actors.readRecord(call.instance.id, membershipKind, membershipId('instance', call.instance.id, userId));
  return membership?.state.roles.includes(INSTANCE_OWNER_ROLE) === true ? findOtherOwners(call, userId) : [];
}
