/**
 * Sets limits of one or more instances (seed 000 Limit / BulkLimit): a partial update of
 * `block` and the audit log retention. Several instances change in one append, so a bulk
 * update is all or nothing; an instance whose limits already have the values records nothing.
 */
import { invalidArgument, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { instanceKind, limitsOf, type InstanceLimitsChange } from '../instance.js';

export interface InstanceLimitsUpdate extends InstanceLimitsChange {
  readonly instanceId: string;
}

export interface SetInstanceLimits {
  readonly updates: readonly InstanceLimitsUpdate[];
}

export const setInstanceLimits: CommandHandler<SetInstanceLimits, readonly ResourceDetails[]> = {
  load: (c) => c.updates.map((u) => ref(instanceKind, u.instanceId)),
  decide(loaded, c, ctx) {
    const seen = new Set<string>();
    const events: DomainEvent[] = [];
    const records = c.updates.map((update, i) => {
      if (seen.has(update.instanceId)) {
        throw invalidArgument('instance.limits_duplicate', 'an instance is named more than once', {
          violations: [{ field: `limits[${i}].instanceId`, description: 'named more than once' }],
        });
      }
      seen.add(update.instanceId);
      const current = loaded.get(instanceKind, update.instanceId).record;
      if (current === undefined) throw notFound('instance.not_found', 'instance not found');
      const change = changedFields(limitsOf(current.state), update);
      if (Object.keys(change).length > 0) {
        const owner = instanceOwner(update.instanceId);
        events.push({ aggregateType: instanceKind.type, aggregateId: update.instanceId, type: 'instance.limits.set', owner, creator: ctx.creator, payload: change });
      }
      return current;
    });
    return {
      events,
      reply: (outcome) =>
        records.map((record) =>
          detailsAfter(
            { ...outcome, events: outcome.events.filter((e) => e.aggregateId === record.id) },
            { id: record.id, record, owner: instanceOwner(record.id) },
          ),
        ),
    };
  },
};

/** The fields of `update` that differ from `current` (none: no event). */
function changedFields(current: InstanceLimitsChange, update: InstanceLimitsChange): InstanceLimitsChange {
  return {
    ...(update.block !== undefined && update.block !== current.block ? { block: update.block } : {}),
    ...(update.auditLogRetentionMs !== undefined && update.auditLogRetentionMs !== current.auditLogRetentionMs
      ? { auditLogRetentionMs: update.auditLogRetentionMs }
      : {}),
  };
}
