/**
 * Typed domain events. Each aggregate declares ONE discriminated union of its events (type
 * literal → payload) through its catalogue (`defineEvents`): `decide` may only emit members of
 * the union of every catalogue (actors/events.ts), `evolve` receives members of its own, so a
 * switch on `event.type` narrows the payload without casts. The catalogue is also the text of
 * docs/events.md (`npm run docs:events`): an event without an entry, or a payload field without
 * a description, fails typecheck.
 */
import type { NewEvent, Owner, StoredEvent } from './ports.js';

/** An event of one aggregate as its union lists it: a type literal and the payload of that type. */
export interface EventShape {
  readonly type: string;
  readonly payload: unknown;
}

/** The payload of the event type `T` of the union `E` (a member may list several type literals). */
export type PayloadOf<E extends EventShape, T extends string> = E extends EventShape ? (T extends E['type'] ? E['payload'] : never) : never;

/** What an event carries besides its union member: stream id, owner, creator. */
export type EventEnvelope = Omit<NewEvent, 'aggregateType' | 'type' | 'payload'>;

/**
 * A member of `E` as decide returns it, with its stream type `A`. The intersection distributes
 * over the union, so an object literal is checked against the member its `type` names.
 */
export type Emitted<E extends EventShape, A extends string = string> = EventEnvelope & { readonly aggregateType: A } & E;

/** A member of `E` as the store recorded it (what evolve folds); `type` narrows `payload`. */
export type Recorded<E extends EventShape> = Omit<StoredEvent, 'type' | 'payload'> & E;

/** Builds events of one stream: `emit({ type: 'user.locked', payload: {} })`. */
export type Emit<E extends EventShape, A extends string = string> = (event: E) => Emitted<E, A>;

/** The emitter of the stream `aggregateId` of `kind`, recording `owner` and `creator` on each event. */
export function emitter<E extends EventShape, A extends string>(
  kind: { readonly type: A; readonly events: EventCatalogue<E, A> },
  aggregateId: string,
  owner: Owner,
  creator: string,
): Emit<E, A> {
  return (event) => ({ aggregateType: kind.type, aggregateId, owner, creator, ...event });
}

/**
 * What docs/events.md says about one event: which commands emit it, one line per payload field
 * (every top-level key of the payload type, optional ones included), and an optional note.
 */
export interface EventDoc<P> {
  readonly emittedBy: string;
  readonly payload: { readonly [K in keyof P]-?: string };
  readonly note?: string;
}

/** One entry per member of `E`, keyed by its type literal; no entry for anything else. */
export type EventEntries<E extends EventShape> = { readonly [T in E['type']]: EventDoc<PayloadOf<E, T>> };

/** The catalogue of one aggregate: its stream type, how the docs name it, one entry per event. */
export interface EventCatalogue<E extends EventShape, A extends string = string> {
  /** The stream type (`AggregateKind.type`). */
  readonly aggregateType: A;
  /** The aggregate column of docs/events.md (what it is, its id and owner when not obvious). */
  readonly aggregate: string;
  readonly events: EventEntries<E>;
  /** Type-level only: the union this catalogue documents. */
  readonly __event?: E;
}

/**
 * Declares an aggregate's events: `defineEvents<OrgEvent>()('org', 'org', { 'org.added': … })`.
 * Curried so the union is given and the stream type is inferred as a literal.
 */
export function defineEvents<E extends EventShape>() {
  return <A extends string>(aggregateType: A, aggregate: string, events: EventEntries<E>): EventCatalogue<E, A> => ({
    aggregateType,
    aggregate,
    events,
  });
}

/** The union documented by a catalogue, as decide emits it (stream type attached). */
export type EmittedOf<C> = C extends EventCatalogue<infer E, infer A> ? Emitted<E, A> : never;
