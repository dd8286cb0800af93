/**
 * Aggregates: the unit of consistency. Each has its own stream (conditional appends on
 * its version) and one read-model row holding its current state, written in the same
 * transaction as its events. `evolve` is pure: the row always equals the fold of the stream.
 */
import type { Owner, StoredEvent } from './ports.js';

export interface RecordMeta {
  /** Stream version of the last event folded in. */
  readonly version: number;
  /** Per-instance position of the last event folded in (Details.sequence). */
  readonly sequence: number;
  readonly createdAt: number;
  readonly changedAt: number;
  readonly owner: Owner;
}

/** The stored read-model row of an aggregate. */
export interface AggregateRecord<S> {
  readonly id: string;
  readonly meta: RecordMeta;
  readonly state: S;
}

export interface AggregateKind<S> {
  /** Stream type, e.g. `org`. */
  readonly type: string;
  /** Read-model table of the rows. */
  readonly table: string;
  /** Folds one event in; returns undefined when the aggregate is removed. */
  evolve(state: S | undefined, event: StoredEvent): S | undefined;
}

/** An aggregate as a command sees it: its state (if it exists) and stream version. */
export interface Loaded<S> {
  readonly kind: AggregateKind<S>;
  readonly id: string;
  /** Current stream version; > 0 with no record means the aggregate was removed. */
  readonly version: number;
  readonly record: AggregateRecord<S> | undefined;
}

/** Folds stored events into a record, producing the next row (undefined once removed). */
export function foldRecord<S>(
  kind: AggregateKind<S>,
  id: string,
  previous: AggregateRecord<S> | undefined,
  events: readonly StoredEvent[],
): AggregateRecord<S> | undefined {
  let record = previous;
  for (const event of events) {
    const state = kind.evolve(record?.state, event);
    if (state === undefined) {
      record = undefined;
      continue;
    }
    record = {
      id,
      state,
      meta: {
        version: event.version,
        sequence: event.position,
        createdAt: record?.meta.createdAt ?? event.createdAt,
        changedAt: event.createdAt,
        owner: event.owner,
      },
    };
  }
  return record;
}
