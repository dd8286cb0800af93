/** PlatformLoginSettings: every RPC definition of the service. */
import { getLoginSettingsRpc } from './get-login-settings.js';
import { resetLoginSettingsRpc, setLoginSettingsRpc } from './set-login-settings.js';

export const loginSettingsRpcs = [getLoginSettingsRpc, setLoginSettingsRpc, resetLoginSettingsRpc] as const;
