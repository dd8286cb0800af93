/** PlatformUserSettings: every RPC definition of the service. */
import { getUserSettingsRpc } from './get-user-settings.js';
import { setUserSettingsRpc } from './set-user-settings.js';

export const userSettingsRpcs = [getUserSettingsRpc, setUserSettingsRpc] as const;
