/** PlatformRateLimitSettings: every RPC definition of the service. */
import { getRateLimitSettingsRpc } from './get-rate-limits.js';
import { setRateLimitSettingsRpc } from './set-rate-limits.js';

export const rateLimitSettingsRpcs = [getRateLimitSettingsRpc, setRateLimitSettingsRpc] as const;
