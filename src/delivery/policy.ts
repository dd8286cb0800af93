/** The node's outbound policy as one object per setting (connection pools are kept per policy object). */
import type { Config } from '../config/schema.js';
import { PUBLIC_ONLY, type OutboundPolicy } from '../http/outbound-policy.js';

const ALLOW_PRIVATE: OutboundPolicy = Object.freeze({ allowPrivateNetworks: true });

export function outboundPolicyOf(config: Pick<Config, 'outboundAllowPrivateNetworks'>): OutboundPolicy {
  return config.outboundAllowPrivateNetworks ? ALLOW_PRIVATE : PUBLIC_ONLY;
}
