/** ListPersonalAccessTokens: GET /resources/v3alpha/users/{id}/tokens — ids and dates, never the tokens (`user.read`). */
import { z } from 'zod';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toTimestamp } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor } from './shared.js';

const input = z.object({ id: resourceId });

export const listPersonalAccessTokensRpc = defineRpc({
  method: PlatformUsers.method.listPersonalAccessTokens,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.read');
    const tokens = user.state.type === 'machine' ? user.state.tokens : [];
    return {
      tokens: tokens.map((t) => ({ id: t.id, expirationDate: toTimestamp(t.expiresAt), creationDate: toTimestamp(t.createdAt ?? 0) })),
    };
  },
});
