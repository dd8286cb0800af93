/**
 * Removes an instance from the directory and releases its domains, so its Host names stop
 * resolving. Its own data stays under its tenant prefix, unreachable (tombstoned).
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { INSTANCE_DOMAIN_SCOPE, instanceKind } from '../instance.js';

export interface RemoveInstance {
  readonly instanceId: string;
}

export const removeInstance: CommandHandler<RemoveInstance, ResourceDetails> = {
  load: (c) => [ref(instanceKind, c.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(instanceKind, c.instanceId).record;
    if (current === undefined) throw notFound('instance.not_found', 'instance not found');
    const owner = instanceOwner(c.instanceId);
    return {
      events: [{ aggregateType: instanceKind.type, aggregateId: c.instanceId, type: 'instance.removed', owner, creator: ctx.creator, payload: {} }],
      releases: current.state.domains.map((value) => ({ scope: INSTANCE_DOMAIN_SCOPE, value })),
      reply: (outcome) => detailsAfter(outcome, { id: c.instanceId, record: current, owner }),
    };
  },
};
