/** PlatformWebKeys: every RPC definition of the service (they share the node's web-key service). */
import type { WebKeyService } from '../../../crypto/web-keys.js';
import { createListWebKeysRpc } from './list-web-keys.js';
import { createRotateWebKeysRpc } from './rotate-web-keys.js';

export function createWebKeyRpcs(webKeys: WebKeyService) {
  return [createListWebKeysRpc(webKeys), createRotateWebKeysRpc(webKeys)] as const;
}
