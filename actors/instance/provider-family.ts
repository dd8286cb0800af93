/**
 * Notification providers of an instance (SMTP and SMS, seed 000 service list): each kind is a
 * family of provider aggregates (one stream per provider, instance-owned) plus ONE activation
 * aggregate per instance (id = instance id) naming the active provider. Every activation
 * change goes through that one aggregate, so "at most one active provider of each kind per
 * instance" holds by construction, also under concurrent calls. Secret fields are recorded
 * sealed with the node's secret sealer and never leave the node through a read.
 */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

/** The activation aggregate's state: the active provider's id, '' when none. */
export interface ProviderActivation {
  readonly activeId: string;
}

export interface ProviderFamily<S> {
  /** `smtp` or `sms`: events are `instance.<name>.provider.*`. */
  readonly name: 'smtp' | 'sms';
  readonly kind: AggregateKind<S>;
  readonly activation: AggregateKind<ProviderActivation>;
  /** Fields recorded sealed ('' stays ''). */
  readonly sealed: readonly (keyof S & string)[];
  /** Fields a patch may not change (error on the wire field `immutableField`). */
  readonly immutable: readonly (keyof S & string)[];
  readonly notFoundCode: string;
}

export type ProviderEvent<S> =
  | { type: `instance.${string}.provider.added`; payload: S }
  | { type: `instance.${string}.provider.changed`; payload: Partial<S> }
  | { type: `instance.${string}.provider.removed`; payload: Record<string, never> };

export function eventType(family: { readonly name: string }, action: 'added' | 'changed' | 'removed' | 'activated' | 'deactivated'): string {
  return `instance.${family.name}.provider.${action}`;
}

/** The provider aggregate kind of a family: stream `<name>_provider`, table `<name>_providers`. */
export function providerKind<S extends object>(name: 'smtp' | 'sms'): AggregateKind<S> {
  const added = eventType({ name }, 'added');
  const changed = eventType({ name }, 'changed');
  const removed = eventType({ name }, 'removed');
  return {
    type: `${name}_provider`,
    table: `${name}_providers`,
    evolve(state, event: StoredEvent) {
      if (event.type === added) return { ...(event.payload as S) };
      if (event.type === changed) return state && { ...state, ...(event.payload as Partial<S>) };
      if (event.type === removed) return undefined;
      return state;
    },
  };
}

/** The activation aggregate of a family: stream `<name>_provider_activation`, id = instance id. */
export function activationKind(name: 'smtp' | 'sms'): AggregateKind<ProviderActivation> {
  const activated = eventType({ name }, 'activated');
  const deactivated = eventType({ name }, 'deactivated');
  return {
    type: `${name}_provider_activation`,
    table: `${name}_provider_activations`,
    evolve(state, event: StoredEvent) {
      const id = (event.payload as { id?: unknown }).id;
      if (event.type === activated && typeof id === 'string') return { activeId: id };
      if (event.type === deactivated) return { activeId: state?.activeId === id ? '' : (state?.activeId ?? '') };
      return state;
    },
  };
}
