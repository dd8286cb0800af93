/**
 * AddPersonalAccessToken: POST /resources/v3alpha/users/{id}/tokens, body {expirationDate?}
 * (`user.credential.write`; machine users only). The token is returned only here; the store
 * keeps its SHA-256 digest.
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { addPersonalAccessToken } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { randomSecret } from '../../../crypto/random.js';
import { tokenDigest } from '../../../crypto/token-digest.js';
import { defineRpc } from '../../invoker.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { NEVER_EXPIRES, requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

export const addPersonalAccessTokenRpc = defineRpc({
  method: PlatformUsers.method.addPersonalAccessToken,
  permission: 'authenticated',
  created: true,
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const expiry = request.token?.expirationDate;
    const expiresAt = expiry === undefined ? NEVER_EXPIRES : timestampMs(expiry);
    const token = randomSecret();
    const tokenId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      userActor(call, user),
      addPersonalAccessToken,
      { userId: id, tokenId, digest: tokenDigest(token), expiresAt },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), tokenId, token, expirationDate: toTimestamp(expiresAt) };
  },
});
