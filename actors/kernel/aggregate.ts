/**
 * Aggregates: the unit of consistency. Each has its own stream (conditional appends on
 * its version) and one read-model row holding its current state, written in the same
 * transaction as its events. `evolve` is pure: the row always equals the fold of the stream.
 */
import { ProgrammerError } from './errors.js';
import type { EventCatalogue, EventShape, Recorded } from './events.js';
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

/** An aggregate: state `S`, event union `E` (its catalogue in actors/events.ts), stream type `A`. */
export interface AggregateKind<S, E extends EventShape = EventShape, A extends string = string> {
  /** Stream type, e.g. `org`. */
  readonly type: A;
  /** Read-model table of the rows. */
  readonly table: string;
  /** The events of this aggregate (actors/events.ts); folding checks stored events against it. */
  readonly events: EventCatalogue<E, A>;
  /** Folds one event in; returns undefined when the aggregate is removed. */
  evolve(state: S | undefined, event: Recorded<E>): S | undefined;
}

/** An aggregate as a command sees it: its state (if it exists) and stream version. */
export interface Loaded<S> {
  readonly kind: AggregateKind<S>;
  readonly id: string;
  /** Current stream version; > 0 with no record means the aggregate was removed. */
  readonly version: number;
  readonly record: AggregateRecord<S> | undefined;
}

/**
 * The one place where an event read from the store (type string, payload unknown) becomes a
 * member of the aggregate's union. Checked: the event belongs to the kind's stream type and its
 * type is in the kind's catalogue (undefined otherwise: a type this version does not know
 * leaves the state as it is, as evolve's default did). Trusted: the payload has the shape of that type, because
 * every stored event was produced by a `decide` typed against the same union and events are
 * never edited (a changed shape gets a new type).
 */
export function recordedEvent<E extends EventShape>(
  kind: { readonly type: string; readonly events: EventCatalogue<E> },
  event: StoredEvent,
): Recorded<E> | undefined {
  if (event.aggregateType !== kind.type) {
    throw new ProgrammerError(`event ${event.type} of stream ${event.aggregateType} folded into ${kind.type}`);
  }
  if (!Object.hasOwn(kind.events.events, event.type)) return undefined;
  // Documented trust (above): the payload of a catalogued type was written by a typed decide.
  return event as unknown as Recorded<E>;
}

/** Folds stored events into a record, producing the next row (undefined once removed). */
export function foldRecord<S, E extends EventShape>(
  kind: AggregateKind<S, E>,
  id: string,
  previous: AggregateRecord<S> | undefined,
  events: readonly StoredEvent[],
): AggregateRecord<S> | undefined {
  let record = previous;
  for (const stored of events) {
    const event = recordedEvent(kind, stored);
    const state = event === undefined ? record?.state : kind.evolve(record?.state, event);
    if (state === undefined) {
      record = undefined;
      continue;
    }
    record = {
      id,
      state,
      meta: {
        version: stored.version,
        sequence: stored.position,
        createdAt: record?.meta.createdAt ?? stored.createdAt,
        changedAt: stored.createdAt,
        owner: stored.owner,
      },
    };
  }
  return record;
}
