/**
 * The target aggregate (seed 000 "Target"): an endpoint executions call. Its signing key is
 * stored sealed with the master key; a rotation may keep the previous key signing for a grace
 * period (reference facts §3.1: several `v1=` entries while keys rotate).
 */
import { targetEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';

export type TargetType = 'rest_webhook' | 'rest_request_response';
/** `none`: errors are logged and the execution goes on. */
export type TargetExecutionType = 'none' | 'async' | 'interrupt';

export interface Target {
  readonly name: string;
  readonly targetType: TargetType;
  readonly url: string;
  /** 0 < timeout ≤ 270 s, in nanoseconds (google.protobuf.Duration precision). */
  readonly timeoutNanos: number;
  readonly executionType: TargetExecutionType;
  /** Sealed with the master key. */
  readonly signingKey: string;
  /** Sealed previous key, still signing until `previousKeyExpiresAt` ('' when none). */
  readonly previousSigningKey: string;
  readonly previousKeyExpiresAt: number;
}

/** Unique claim scope of target names (value: `targetNameKey`). */
export const TARGET_NAME_SCOPE = 'action.target.name';
/** Reference facts §1.5 recommendation: 0 < timeout ≤ 270 s. */
export const MAX_TARGET_TIMEOUT_NANOS = 270_000_000_000;

export type TargetAdded = Omit<Target, 'previousSigningKey' | 'previousKeyExpiresAt'>;

export type TargetEvent =
  | { type: 'action.target.added'; payload: TargetAdded }
  | { type: 'action.target.changed'; payload: Partial<Target> }
  | { type: 'action.target.removed'; payload: Record<string, never> };

/** Targets of an instance: stream type `target`, table `targets`. */
export const targetKind: AggregateKind<Target, TargetEvent, 'target'> = {
  type: 'target',
  table: 'targets',
  events: targetEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'action.target.added':
        return { ...e.payload, previousSigningKey: '', previousKeyExpiresAt: 0 };
      case 'action.target.changed':
        return state && { ...state, ...e.payload };
      case 'action.target.removed':
        return undefined;
      default:
        return state;
    }
  },
};

/** Claim value of a target name: unique per instance regardless of case. */
export function targetNameKey(name: string): string {
  return name.trim().toLowerCase();
}
