/** DeletePersonalAccessToken: DELETE /resources/v3alpha/users/{id}/tokens/{tokenId}; the token stops authenticating at once. */
import { z } from 'zod';
import { removePersonalAccessToken } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId, tokenId: resourceId });

export const deletePersonalAccessTokenRpc = defineRpc({
  method: PlatformUsers.method.deletePersonalAccessToken,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, tokenId } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const details = await call.services.actors.ask(
      userActor(call, user),
      removePersonalAccessToken,
      { orgId: user.state.orgId, userId: id, tokenId },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
