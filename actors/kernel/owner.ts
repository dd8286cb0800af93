/** Owner constructors and the details every mutation answers with. */
import type { AggregateRecord } from './aggregate.js';
import type { Outcome } from './command.js';
import type { Owner } from './ports.js';

export const systemOwner: Owner = { type: 'system', id: '' };

export function instanceOwner(instanceId: string): Owner {
  return { type: 'instance', id: instanceId };
}

export function orgOwner(orgId: string): Owner {
  return { type: 'org', id: orgId };
}

/** Details of a resource (seed 000 "Resource details"). */
export interface ResourceDetails {
  readonly id: string;
  readonly sequence: number;
  /** Epoch milliseconds. */
  readonly changeDate: number;
  readonly resourceOwner: Owner;
}

export function detailsOf(record: AggregateRecord<unknown>): ResourceDetails {
  return { id: record.id, sequence: record.meta.sequence, changeDate: record.meta.changedAt, resourceOwner: record.meta.owner };
}

/** Details after a mutation: of the last event written, or of the current row for a no-op. */
export function detailsAfter(
  outcome: Outcome,
  fallback: { id: string; record: AggregateRecord<unknown> | undefined; owner: Owner },
): ResourceDetails {
  const last = outcome.events[outcome.events.length - 1];
  if (last !== undefined) {
    return { id: fallback.id, sequence: last.position, changeDate: last.createdAt, resourceOwner: last.owner };
  }
  if (fallback.record !== undefined) return detailsOf(fallback.record);
  return { id: fallback.id, sequence: 0, changeDate: 0, resourceOwner: fallback.owner };
}
