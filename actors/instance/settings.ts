/**
 * Instance-wide settings kept under the instance's own keys: default organization, feature
 * flags, and the rate limits the instance set for itself (src/http/rate-limits.ts).
 */
import { instanceSettingsEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';

export interface InstanceSettings {
  readonly defaultOrgId: string;
  readonly features: Readonly<Record<string, boolean>>;
  /**
   * Rate limits the instance set, by limit name (`client`, `apiCaller`, ...): `N/duration` or
   * `off`. A limit absent here is the node's default (TESSERA_RATE_LIMIT_*). Absent on rows
   * written before the setting existed.
   */
  readonly rateLimits?: Readonly<Record<string, string>>;
}

export type InstanceSettingsEvent =
  | { type: 'instance.default.org.set'; payload: { orgId: string } }
  | { type: 'instance.feature.set'; payload: { name: string; value: boolean } }
  /** The instance's whole set of rate limit values after the change (a limit left out is reset to the node default). */
  | { type: 'instance.rate_limits.set'; payload: { limits: Readonly<Record<string, string>> } };

export const instanceSettingsKind: AggregateKind<InstanceSettings, InstanceSettingsEvent, 'instance'> = {
  type: 'instance',
  table: 'instance',
  events: instanceSettingsEvents,
  evolve(state, e) {
    const current: InstanceSettings = state ?? { defaultOrgId: '', features: {} };
    switch (e.type) {
      case 'instance.default.org.set':
        return { ...current, defaultOrgId: e.payload.orgId };
      case 'instance.feature.set':
        return { ...current, features: { ...current.features, [e.payload.name]: e.payload.value } };
      case 'instance.rate_limits.set':
        return { ...current, rateLimits: { ...e.payload.limits } };
      default:
        return state;
    }
  },
};
