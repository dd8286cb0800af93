/** ListWebKeys: GET /resources/v3alpha/web_keys — the instance's key set, public information only. */
import { PlatformWebKeys } from '../../../gen/platform/resources/webkey/v3alpha/webkey_service_pb.js';
import type { WebKeyService } from '../../../crypto/web-keys.js';
import { defineRpc } from '../../invoker.js';
import { compareWebKeys, toGetWebKey } from './convert.js';

export function createListWebKeysRpc(webKeys: WebKeyService) {
  return defineRpc({
    method: PlatformWebKeys.method.listWebKeys,
    permission: 'iam.web_key.read',
    async handle(_request, call) {
      const ring = await webKeys.ring(call.instance.id);
      const keys = [...ring.state.keys].sort(compareWebKeys);
      return { webKeys: keys.map((key) => toGetWebKey(key, call.instance.id, webKeys.policy.retireAfterMs)) };
    },
  });
}
