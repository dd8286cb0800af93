/**
 * Removes an execution. Refused (400) while another execution includes it: remove or change
 * the including executions first, so no include ever expands to nothing without a trace
 * (reference facts §3.3 recommendation).
 */
import { failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { executionSetKind } from '../execution.js';
import { includersOf } from '../execution-includes.js';

export interface RemoveExecution {
  /** Reference form (the edge canonicalizes aliases). */
  readonly executionId: string;
}

/** `execution.remove`: records `action.execution.removed`. */
export const removeExecution: CommandHandler<RemoveExecution, ResourceDetails> = {
  load: (_c, ctx) => [ref(executionSetKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const entries = loaded.get(executionSetKind, ctx.instanceId).record?.state.entries ?? {};
    if (entries[c.executionId] === undefined) throw notFound('execution.not_found', 'execution not found');
    if (includersOf(entries, c.executionId).length > 0) {
      throw failedPrecondition('execution.included', 'the execution is included by another execution; remove the include first');
    }
    const owner = instanceOwner(ctx.instanceId);
    return {
      events: [
        { aggregateType: executionSetKind.type, aggregateId: ctx.instanceId, type: 'action.execution.removed', owner, creator: ctx.creator, payload: { id: c.executionId } },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.executionId, record: undefined, owner }),
    };
  },
};
