/** PlatformApps: every RPC definition of the service. */
import { createAppKeyRpc } from './create-app-key.js';
import { createAppRpc } from './create-app.js';
import { deleteAppKeyRpc } from './delete-app-key.js';
import { deleteAppRpc } from './delete-app.js';
import { generateAppSecretRpc } from './generate-app-secret.js';
import { getAppRpc } from './get-app.js';
import { patchAppRpc } from './patch-app.js';
import { searchAppKeysRpc } from './search-app-keys.js';
import { searchAppsRpc } from './search-apps.js';

export const appRpcs = [
  createAppRpc,
  getAppRpc,
  patchAppRpc,
  deleteAppRpc,
  searchAppsRpc,
  generateAppSecretRpc,
  createAppKeyRpc,
  deleteAppKeyRpc,
  searchAppKeysRpc,
] as const;
