/**
 * The instance directory entry, kept in the system tenant: name, domains (each claimed
 * under `instance.domain`, which resolves a Host to its instance) and state.
 */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

export interface InstanceEntry {
  readonly name: string;
  readonly domains: readonly string[];
  readonly state: 'active';
}

export const INSTANCE_DOMAIN_SCOPE = 'instance.domain';

export type InstanceEvent =
  | { type: 'instance.added'; payload: { name: string; domain: string } }
  | { type: 'instance.changed'; payload: { name: string } }
  | { type: 'instance.domain.added'; payload: { domain: string } }
  | { type: 'instance.domain.removed'; payload: { domain: string } }
  | { type: 'instance.removed'; payload: Record<string, never> };

export const instanceKind: AggregateKind<InstanceEntry> = {
  type: 'instance',
  table: 'instances',
  evolve(state, event: StoredEvent) {
    const e = event as unknown as InstanceEvent;
    switch (e.type) {
      case 'instance.added':
        return { name: e.payload.name, domains: [e.payload.domain], state: 'active' };
      case 'instance.changed':
        return state && { ...state, name: e.payload.name };
      case 'instance.domain.added':
        return state && { ...state, domains: [...state.domains, e.payload.domain] };
      case 'instance.domain.removed':
        return state && { ...state, domains: state.domains.filter((d) => d !== e.payload.domain) };
      case 'instance.removed':
        return undefined;
      default:
        return state;
    }
  },
};
