/**
 * Commands: `load` names the aggregates a command reads, `decide` is pure and returns the
 * events to record (or throws a typed AppError). No I/O, clock or randomness inside decide:
 * time, ids and the sealer come in through the context.
 */
import type { DomainEvent } from '../events.js';
import type { AggregateKind, AggregateRecord, Loaded } from './aggregate.js';
import type { IdGenerator, SecretSealer, StoredEvent, UniqueClaim, UniqueRelease } from './ports.js';

export interface CommandContext {
  readonly instanceId: string;
  /** Epoch milliseconds of this attempt. */
  readonly now: number;
  /** Id of the user on whose behalf the command runs ('' for the system). */
  readonly creator: string;
  readonly ids: IdGenerator;
  readonly sealer: SecretSealer;
}

export interface AggregateRef {
  readonly kind: AggregateKind<unknown>;
  readonly id: string;
}

/** The aggregates a command loaded, by kind and id. */
export interface LoadedSet {
  get<S>(kind: AggregateKind<S>, id: string): Loaded<S>;
}

/** What the append produced, for building the reply. */
export interface Outcome {
  readonly events: readonly StoredEvent[];
  /** The record of an aggregate after the command (undefined if absent/removed). */
  record<S>(kind: AggregateKind<S>, id: string): AggregateRecord<S> | undefined;
}

export interface Decision<R> {
  /** Only catalogued events (actors/events.ts), each with its own stream type and payload. */
  readonly events: readonly DomainEvent[];
  readonly claims?: readonly UniqueClaim[];
  readonly releases?: readonly UniqueRelease[];
  readonly reply: (outcome: Outcome) => R;
}

export interface CommandHandler<C, R> {
  load(command: C, ctx: CommandContext): readonly AggregateRef[];
  decide(loaded: LoadedSet, command: C, ctx: CommandContext): Decision<R>;
}

export function ref<S>(kind: AggregateKind<S>, id: string): AggregateRef {
  return { kind: kind as AggregateKind<unknown>, id };
}

/** A record the caller read from the store, offered to a command's load (AskOptions.known). */
export interface KnownRecord {
  readonly kind: AggregateKind<unknown>;
  readonly record: AggregateRecord<unknown>;
}

export function knownRecord<S>(kind: AggregateKind<S>, record: AggregateRecord<S>): KnownRecord {
  return { kind: kind as AggregateKind<unknown>, record: record as AggregateRecord<unknown> };
}
