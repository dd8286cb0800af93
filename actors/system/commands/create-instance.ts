/** Creates an instance in the directory with its first domain (claimed across instances). */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { INSTANCE_DOMAIN_SCOPE, instanceKind } from '../instance.js';

export interface CreateInstance {
  readonly instanceId: string;
  readonly name: string;
  /** A normalized host name (lower case, no port). */
  readonly domain: string;
}

export const createInstance: CommandHandler<CreateInstance, ResourceDetails> = {
  load: (c) => [ref(instanceKind, c.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(instanceKind, c.instanceId);
    if (current.version > 0) throw alreadyExists('instance.exists', 'the instance already exists');
    const owner = instanceOwner(c.instanceId);
    return {
      events: [
        {
          aggregateType: instanceKind.type,
          aggregateId: c.instanceId,
          type: 'instance.added',
          owner,
          creator: ctx.creator,
          payload: { name: c.name.trim(), domain: c.domain },
        },
      ],
      claims: [{ scope: INSTANCE_DOMAIN_SCOPE, value: c.domain, holder: c.instanceId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.instanceId, record: undefined, owner }),
    };
  },
};
