/** PlatformFeatures: every RPC definition of the service. */
import { resolveFeaturesRpc } from './resolve-features.js';
import { setFeaturesRpc } from './set-features.js';

export const featureRpcs = [resolveFeaturesRpc, setFeaturesRpc] as const;
