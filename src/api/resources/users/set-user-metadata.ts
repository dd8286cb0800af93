/** SetUserMetadata: PUT /resources/v3alpha/users/{id}/metadata/{key}, body {value: base64} (`user.write`). */
import { z } from 'zod';
import { setUserMetadata } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

export const metadataKey = z.string().min(1, 'required').max(200, 'must be at most 200 characters');

const input = z.object({
  id: resourceId,
  key: metadataKey,
  metadata: z.object(
    {
      value: z
        .instanceof(Uint8Array)
        .refine((v) => v.length > 0, 'required')
        .refine((v) => v.length <= 4096, 'must be at most 4096 bytes'),
    },
    'required',
  ),
});

export const setUserMetadataRpc = defineRpc({
  method: PlatformUsers.method.setUserMetadata,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, key, metadata } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.write');
    const value = Buffer.from(metadata.value).toString('base64');
    const details = await call.services.actors.ask(
      userActor(call, user),
      setUserMetadata,
      { orgId: user.state.orgId, userId: id, key, value },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
