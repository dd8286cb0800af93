/** Instance-wide settings kept under the instance's own keys: default organization, feature flags. */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

export interface InstanceSettings {
  readonly defaultOrgId: string;
  readonly features: Readonly<Record<string, boolean>>;
}

export type InstanceSettingsEvent =
  | { type: 'instance.default.org.set'; payload: { orgId: string } }
  | { type: 'instance.feature.set'; payload: { name: string; value: boolean } };

export const instanceSettingsKind: AggregateKind<InstanceSettings> = {
  type: 'instance',
  table: 'instance',
  evolve(state, event: StoredEvent) {
    const current: InstanceSettings = state ?? { defaultOrgId: '', features: {} };
    const e = event as unknown as InstanceSettingsEvent;
    switch (e.type) {
      case 'instance.default.org.set':
        return { ...current, defaultOrgId: e.payload.orgId };
      case 'instance.feature.set':
        return { ...current, features: { ...current.features, [e.payload.name]: e.payload.value } };
      default:
        return state;
    }
  },
};
