/** Adds a domain to an instance; a domain belongs to at most one instance (claim). */
import { alreadyExists, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { INSTANCE_DOMAIN_SCOPE, instanceKind } from '../instance.js';

export interface AddInstanceDomain {
  readonly instanceId: string;
  /** A normalized host name (lower case, no port). */
  readonly domain: string;
}

export const addInstanceDomain: CommandHandler<AddInstanceDomain, ResourceDetails> = {
  load: (c) => [ref(instanceKind, c.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(instanceKind, c.instanceId).record;
    if (current === undefined) throw notFound('instance.not_found', 'instance not found');
    if (current.state.domains.includes(c.domain)) throw alreadyExists('instance.domain_exists', 'the instance already has this domain');
    const owner = instanceOwner(c.instanceId);
    return {
      events: [
        { aggregateType: instanceKind.type, aggregateId: c.instanceId, type: 'instance.domain.added', owner, creator: ctx.creator, payload: { domain: c.domain } },
      ],
      claims: [{ scope: INSTANCE_DOMAIN_SCOPE, value: c.domain, holder: c.instanceId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.instanceId, record: current, owner }),
    };
  },
};
