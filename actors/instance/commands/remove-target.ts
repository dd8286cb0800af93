/**
 * Removes a target and, in the same append, takes it out of every execution that lists it
 * (seed 000: "also removes the target from every execution that uses it"). The execution set
 * is loaded, so a concurrent PutExecution naming the target loses the race cleanly.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { executionSetKind } from '../execution.js';
import { TARGET_NAME_SCOPE, targetKind, targetNameKey } from '../target.js';

export interface RemoveTarget {
  readonly targetId: string;
}

/** `target.remove`: records `action.target.removed` and detaches the target from executions. */
export const removeTarget: CommandHandler<RemoveTarget, ResourceDetails> = {
  load: (c, ctx) => [ref(targetKind, c.targetId), ref(executionSetKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(targetKind, c.targetId).record;
    if (current === undefined) throw notFound('target.not_found', 'target not found');
    const owner = instanceOwner(ctx.instanceId);
    const entries = loaded.get(executionSetKind, ctx.instanceId).record?.state.entries ?? {};
    const detached: DomainEvent[] = Object.entries(entries)
      .filter(([, entry]) => entry.targets.includes(c.targetId))
      .map(([id, entry]) => ({
        aggregateType: executionSetKind.type,
        aggregateId: ctx.instanceId,
        type: 'action.execution.set',
        owner,
        creator: ctx.creator,
        payload: { id, condition: entry.condition, targets: entry.targets.filter((t) => t !== c.targetId), includes: entry.includes },
      }));
    const removed: DomainEvent = { aggregateType: targetKind.type, aggregateId: c.targetId, type: 'action.target.removed', owner, creator: ctx.creator, payload: {} };
    return {
      events: [removed, ...detached],
      releases: [{ scope: TARGET_NAME_SCOPE, value: targetNameKey(current.state.name) }],
      reply: (outcome) => {
        const own = outcome.events.find((e) => e.aggregateType === targetKind.type);
        return detailsAfter({ ...outcome, events: own === undefined ? [] : [own] }, { id: c.targetId, record: current, owner });
      },
    };
  },
};
