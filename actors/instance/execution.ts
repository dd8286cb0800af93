/**
 * The executions of an instance, kept as ONE aggregate (id = instance id) so that includes
 * (existence, same type, no cycles, depth), "not included elsewhere" on delete and "remove a
 * deleted target everywhere" are decided purely and atomically against one version.
 * Each entry carries its own creation/change dates and sequence for its Details.
 */
import { executionEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { ExecutionCondition } from './execution-condition.js';

export interface ExecutionEntry {
  readonly condition: ExecutionCondition;
  readonly targets: readonly string[];
  readonly includes: readonly string[];
  readonly createdAt: number;
  readonly changedAt: number;
  /** Position of the event that created the entry: event executions see only later events. */
  readonly createdPosition: number;
  /** Position of the last event that changed the entry (Details.sequence). */
  readonly sequence: number;
}

export interface ExecutionSet {
  readonly entries: Readonly<Record<string, ExecutionEntry>>;
}

export interface ExecutionSetPayload {
  readonly id: string;
  readonly condition: ExecutionCondition;
  readonly targets: readonly string[];
  readonly includes: readonly string[];
}

export type ExecutionEvent =
  | { type: 'action.execution.set'; payload: ExecutionSetPayload }
  | { type: 'action.execution.removed'; payload: { id: string } };

/** All executions of an instance as one aggregate (id = instance id), table `executions`. */
export const executionSetKind: AggregateKind<ExecutionSet, ExecutionEvent, 'execution'> = {
  type: 'execution',
  table: 'executions',
  events: executionEvents,
  evolve(state, e) {
    const current = state ?? { entries: {} };
        switch (e.type) {
      case 'action.execution.set': {
        const previous = current.entries[e.payload.id];
        const entry: ExecutionEntry = {
          condition: e.payload.condition,
          targets: e.payload.targets,
          includes: e.payload.includes,
          createdAt: previous?.createdAt ?? e.createdAt,
          changedAt: e.createdAt,
          createdPosition: previous?.createdPosition ?? e.position,
          sequence: e.position,
        };
        return { entries: { ...current.entries, [e.payload.id]: entry } };
      }
      case 'action.execution.removed': {
        const { [e.payload.id]: _removed, ...rest } = current.entries;
        return { entries: rest };
      }
      default:
        return state;
    }
  },
};

/** An execution with neither targets nor includes does nothing: it is hidden and never runs. */
export function isEffective(entry: ExecutionEntry): boolean {
  return entry.targets.length > 0 || entry.includes.length > 0;
}
