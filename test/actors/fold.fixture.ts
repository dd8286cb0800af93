/** Stores a decision's events for one aggregate (positions from 10) and folds them into its row. */
import { foldRecord, recordedEvent, type AggregateKind, type AggregateRecord } from '../../actors/kernel/aggregate.js';
import type { EventShape, Recorded } from '../../actors/kernel/events.js';
import type { Decision } from '../../actors/kernel/command.js';
import type { Owner, StoredEvent } from '../../actors/kernel/ports.js';
import { NOW } from './decide.fixture.js';

export function applyDecision<S>(
  kind: AggregateKind<S>,
  id: string,
  previous: AggregateRecord<S> | undefined,
  decision: Decision<unknown>,
  at = NOW,
): AggregateRecord<S> | undefined {
  const events: StoredEvent[] = decision.events
    .filter((e) => e.aggregateType === kind.type && e.aggregateId === id)
    .map((e, i) => ({ ...e, instanceId: 'i1', version: (previous?.meta.version ?? 0) + i + 1, position: 10 + i, createdAt: at }));
  return foldRecord(kind, id, previous, events);
}

/** One event of `kind`'s union as the store would hand it to evolve (position 1, now, instance owner unless given). */
export function recorded<S, E extends EventShape>(
  kind: AggregateKind<S, E>,
  event: E,
  at: { readonly position?: number; readonly createdAt?: number; readonly owner?: Owner } = {},
): Recorded<E> {
  const position = at.position ?? 1;
  const stored: StoredEvent = {
    aggregateType: kind.type,
    aggregateId: 'a1',
    instanceId: 'i1',
    owner: at.owner ?? { type: 'instance', id: 'i1' },
    creator: '',
    version: position,
    position,
    createdAt: at.createdAt ?? NOW,
    type: event.type,
    payload: event.payload,
  };
  const typed = recordedEvent(kind, stored);
  if (typed === undefined) throw new Error(`${event.type} is not in the catalogue of ${kind.type}`);
  return typed;
}
