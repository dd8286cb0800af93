/**
 * Notification providers of an instance (SMTP and SMS, seed 000 service list): each kind is a
 * family of provider aggregates (one stream per provider, instance-owned) plus ONE activation
 * aggregate per instance (id = instance id) naming the active provider. Every activation
 * change goes through that one aggregate, so "at most one active provider of each kind per
 * instance" holds by construction, also under concurrent calls. Secret fields are recorded
 * sealed with the node's secret sealer and never leave the node through a read.
 */
import type { DomainEvent } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { ErrorCode } from '../kernel/errors.js';
import type { Owner } from '../kernel/ports.js';

export type ProviderName = 'smtp' | 'sms';

/** The activation aggregate's state: the active provider's id, '' when none. */
export interface ProviderActivation {
  readonly activeId: string;
}

/** The events of one provider's stream: `instance.<name>.provider.added|changed|removed`. */
export type ProviderEvent<N extends ProviderName, S> =
  | { type: `instance.${N}.provider.added`; payload: S }
  | { type: `instance.${N}.provider.changed`; payload: Partial<S> }
  | { type: `instance.${N}.provider.removed`; payload: Record<string, never> }
  /** The outbox could not deliver through the provider (its `lastError`); cleared by `…recovered`. */
  | { type: `instance.${N}.provider.delivery.failed`; payload: { error: string } }
  | { type: `instance.${N}.provider.delivery.recovered`; payload: Record<string, never> };

/** The events of the instance's activation aggregate of a family. */
export type ProviderActivationEvent<N extends ProviderName> =
  | { type: `instance.${N}.provider.activated`; payload: { id: string; previousId: string } }
  | { type: `instance.${N}.provider.deactivated`; payload: { id: string } };

/**
 * Builds a family's events. Each family implements it with its own literal event types, so
 * the shared commands below emit catalogued DomainEvents without knowing which family they run for.
 */
export interface ProviderEvents<S> {
  added(providerId: string, owner: Owner, creator: string, payload: S): DomainEvent;
  changed(providerId: string, owner: Owner, creator: string, payload: Partial<S>): DomainEvent;
  removed(providerId: string, owner: Owner, creator: string): DomainEvent;
  deliveryFailed(providerId: string, owner: Owner, creator: string, payload: { error: string }): DomainEvent;
  deliveryRecovered(providerId: string, owner: Owner, creator: string): DomainEvent;
  activated(instanceId: string, owner: Owner, creator: string, payload: { id: string; previousId: string }): DomainEvent;
  deactivated(instanceId: string, owner: Owner, creator: string, payload: { id: string }): DomainEvent;
}

export interface ProviderFamily<S> {
  /** `smtp` or `sms`: events are `instance.<name>.provider.*`. */
  readonly name: ProviderName;
  readonly kind: AggregateKind<S>;
  readonly activation: AggregateKind<ProviderActivation>;
  readonly events: ProviderEvents<S>;
  /** Fields recorded sealed ('' stays ''). */
  readonly sealed: readonly (keyof S & string)[];
  /** Fields a patch may not change (error on the wire field `immutableField`). */
  readonly immutable: readonly (keyof S & string)[];
  readonly notFoundCode: ErrorCode;
}

export function eventType(family: { readonly name: ProviderName }, action: 'added' | 'changed' | 'removed' | 'activated' | 'deactivated'): string {
  return `instance.${family.name}.provider.${action}`;
}

/**
 * What a provider's row adds to its settings: the last delivery error of the outbox worker
 * (src/delivery/outbox.ts), cleared by the next accepted message.
 */
export interface ProviderDeliveryState {
  readonly lastError?: { readonly error: string; readonly at: number };
}

/** The provider row after a delivery event (the settings untouched). */
export function evolveDelivery<S>(state: S | undefined, failed: { readonly error: string; readonly at: number } | undefined): S | undefined {
  if (state === undefined) return undefined;
  if (failed !== undefined) return { ...state, lastError: failed };
  const { lastError: _cleared, ...rest } = state as S & ProviderDeliveryState;
  return rest as S;
}

/** The activation state after `activated {id}` / `deactivated {id}` (deactivating another provider changes nothing). */
export function nextActivation(state: ProviderActivation | undefined, change: { readonly activated: boolean; readonly id: string }): ProviderActivation {
  if (change.activated) return { activeId: change.id };
  return { activeId: state?.activeId === change.id ? '' : (state?.activeId ?? '') };
}
