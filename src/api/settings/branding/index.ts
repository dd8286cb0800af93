/** PlatformBrandingSettings: every RPC definition of the service. */
import { resolveBrandingRpc } from './resolve-branding.js';
import { setBrandingRpc } from './set-branding.js';

export const brandingSettingsRpcs = [setBrandingRpc, resolveBrandingRpc] as const;
