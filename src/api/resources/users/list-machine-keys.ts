/** ListMachineKeys: GET /resources/v3alpha/users/{id}/keys — public keys and dates (`user.read`). */
import { z } from 'zod';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toTimestamp } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor } from './shared.js';

const input = z.object({ id: resourceId });

export const listMachineKeysRpc = defineRpc({
  method: PlatformUsers.method.listMachineKeys,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.read');
    const keys = user.state.type === 'machine' ? user.state.keys : [];
    return {
      keys: keys.map((k) => ({ id: k.id, publicKey: k.publicKey, expirationDate: toTimestamp(k.expiresAt), creationDate: toTimestamp(k.createdAt) })),
    };
  },
});
