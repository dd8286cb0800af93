/** Stores a decision's events for one aggregate (positions from 10) and folds them into its row. */
import { foldRecord, type AggregateKind, type AggregateRecord } from '../../actors/kernel/aggregate.js';
import type { Decision } from '../../actors/kernel/command.js';
import type { StoredEvent } from '../../actors/kernel/ports.js';
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
