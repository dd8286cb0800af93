/** Removes a domain of an instance; the last domain stays (an instance must be reachable). */
import { failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { INSTANCE_DOMAIN_SCOPE, instanceKind } from '../instance.js';

export interface RemoveInstanceDomain {
  readonly instanceId: string;
  /** A normalized host name (lower case, no port). */
  readonly domain: string;
}

export const removeInstanceDomain: CommandHandler<RemoveInstanceDomain, ResourceDetails> = {
  load: (c) => [ref(instanceKind, c.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(instanceKind, c.instanceId).record;
    if (current === undefined) throw notFound('instance.not_found', 'instance not found');
    if (!current.state.domains.includes(c.domain)) throw notFound('instance.domain_not_found', 'the instance has no such domain');
    if (current.state.domains.length === 1) {
      throw failedPrecondition('instance.domain_last', 'the last domain of an instance cannot be removed; add another first');
    }
    const owner = instanceOwner(c.instanceId);
    return {
      events: [
        { aggregateType: instanceKind.type, aggregateId: c.instanceId, type: 'instance.domain.removed', owner, creator: ctx.creator, payload: { domain: c.domain } },
      ],
      releases: [{ scope: INSTANCE_DOMAIN_SCOPE, value: c.domain }],
      reply: (outcome) => detailsAfter(outcome, { id: c.instanceId, record: current, owner }),
    };
  },
};
