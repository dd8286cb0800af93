/** ListUserMetadata: GET /resources/v3alpha/users/{id}/metadata, sorted by key (`user.read`). */
import { z } from 'zod';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor } from './shared.js';

const input = z.object({ id: resourceId });

export const listUserMetadataRpc = defineRpc({
  method: PlatformUsers.method.listUserMetadata,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.read');
    return { metadata: user.state.metadata.map((m) => ({ key: m.key, value: new Uint8Array(Buffer.from(m.value, 'base64')) })) };
  },
});
