/**
 * The instance directory entry, kept in the system tenant: name, domains (each claimed
 * under `instance.domain`, which resolves a Host to its instance), state and limits. The
 * first domain is the primary one (suffix of generated organization domains).
 */
import { instanceEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';

export interface InstanceLimits {
  /** A blocked instance answers every request with 429 `instance.blocked`. */
  readonly block: boolean;
  /** How long audit events are kept, in milliseconds; 0 = unlimited. */
  readonly auditLogRetentionMs: number;
}

export interface InstanceEntry {
  readonly name: string;
  readonly domains: readonly string[];
  readonly state: 'active';
  readonly limits: InstanceLimits;
}

export const INSTANCE_DOMAIN_SCOPE = 'instance.domain';

export const NO_LIMITS: InstanceLimits = { block: false, auditLogRetentionMs: 0 };

/** The fields of a limits change; absent fields keep their value. */
export interface InstanceLimitsChange {
  readonly block?: boolean;
  readonly auditLogRetentionMs?: number;
}

export type InstanceEvent =
  | { type: 'instance.added'; payload: { name: string; domain: string } }
  | { type: 'instance.changed'; payload: { name: string } }
  | { type: 'instance.domain.added'; payload: { domain: string } }
  | { type: 'instance.domain.removed'; payload: { domain: string } }
  | { type: 'instance.limits.set'; payload: InstanceLimitsChange }
  | { type: 'instance.removed'; payload: Record<string, never> };

export const instanceKind: AggregateKind<InstanceEntry, InstanceEvent, 'instance'> = {
  type: 'instance',
  table: 'instances',
  events: instanceEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'instance.added':
        return { name: e.payload.name, domains: [e.payload.domain], state: 'active', limits: NO_LIMITS };
      case 'instance.changed':
        return state && { ...state, name: e.payload.name };
      case 'instance.domain.added':
        return state && { ...state, domains: [...state.domains, e.payload.domain] };
      case 'instance.domain.removed':
        return state && { ...state, domains: state.domains.filter((d) => d !== e.payload.domain) };
      case 'instance.limits.set':
        return state && { ...state, limits: { ...NO_LIMITS, ...state.limits, ...e.payload } };
      case 'instance.removed':
        return undefined;
      default:
        return state;
    }
  },
};

/** Limits of an entry (rows written before limits existed have none). */
export function limitsOf(entry: InstanceEntry): InstanceLimits {
  return entry.limits ?? NO_LIMITS;
}
