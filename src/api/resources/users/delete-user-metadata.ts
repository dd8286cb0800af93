/** DeleteUserMetadata: DELETE /resources/v3alpha/users/{id}/metadata/{key} (`user.write`; 404 for an unknown key). */
import { z } from 'zod';
import { removeUserMetadata } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { metadataKey } from './set-user-metadata.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId, key: metadataKey });

export const deleteUserMetadataRpc = defineRpc({
  method: PlatformUsers.method.deleteUserMetadata,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, key } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.write');
    const details = await call.services.actors.ask(
      userActor(call, user),
      removeUserMetadata,
      { orgId: user.state.orgId, userId: id, key },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
