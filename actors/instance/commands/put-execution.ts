/**
 * Sets the execution of a condition: creates it, or replaces its targets and includes
 * (seed 000 PutExecution). Every target must exist (404), includes are checked as in
 * reference facts §3.3. Identical content records nothing. The reply says whether it created.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { executionSetKind, type ExecutionEntry } from '../execution.js';
import { executionIdOf, type ExecutionCondition } from '../execution-condition.js';
import { checkIncludes } from '../execution-includes.js';
import { targetKind } from '../target.js';

export interface PutExecution {
  readonly condition: ExecutionCondition;
  readonly targets: readonly string[];
  /** Execution ids in reference form (the edge canonicalizes aliases). */
  readonly includes: readonly string[];
}

export interface PutExecutionReply {
  readonly details: ResourceDetails;
  readonly created: boolean;
}

/** `execution.put`: records `action.execution.set` unless nothing changed. */
export const putExecution: CommandHandler<PutExecution, PutExecutionReply> = {
  load: (c, ctx) => [ref(executionSetKind, ctx.instanceId), ...c.targets.map((t) => ref(targetKind, t))],
  decide(loaded, c, ctx) {
    const id = executionIdOf(c.condition);
    const entries = loaded.get(executionSetKind, ctx.instanceId).record?.state.entries ?? {};
    for (const target of c.targets) {
      if (loaded.get(targetKind, target).record === undefined) throw notFound('target.not_found', 'target not found');
    }
    checkIncludes(entries, id, c.includes);
    const previous = entries[id];
    const owner = instanceOwner(ctx.instanceId);
    if (previous !== undefined && sameContent(previous, c)) {
      return { events: [], reply: () => ({ details: entryDetails(id, previous, owner), created: false }) };
    }
    const payload = { id, condition: c.condition, targets: [...c.targets], includes: [...c.includes] };
    return {
      events: [{ aggregateType: executionSetKind.type, aggregateId: ctx.instanceId, type: 'action.execution.set', owner, creator: ctx.creator, payload }],
      reply: (outcome: Outcome) => {
        const entry = outcome.record(executionSetKind, ctx.instanceId)?.state.entries[id];
        return { details: entry === undefined ? { id, sequence: 0, changeDate: 0, resourceOwner: owner } : entryDetails(id, entry, owner), created: previous === undefined };
      },
    };
  },
};

/** Details of one execution: its own last change, not the whole set's. */
export function entryDetails(id: string, entry: ExecutionEntry, owner: ResourceDetails['resourceOwner']): ResourceDetails {
  return { id, sequence: entry.sequence, changeDate: entry.changedAt, resourceOwner: owner };
}

function sameContent(entry: ExecutionEntry, c: PutExecution): boolean {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return JSON.stringify(entry.condition) === JSON.stringify(c.condition) && same(entry.targets, c.targets) && same(entry.includes, c.includes);
}
