/** Renames an instance; a patch that changes nothing records nothing and succeeds. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { instanceKind } from '../instance.js';

export interface PatchInstance {
  readonly instanceId: string;
  readonly name?: string;
}

export const patchInstance: CommandHandler<PatchInstance, ResourceDetails> = {
  load: (c) => [ref(instanceKind, c.instanceId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(instanceKind, c.instanceId).record;
    if (current === undefined) throw notFound('instance.not_found', 'instance not found');
    const owner = instanceOwner(c.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.instanceId, record: current, owner });
    const name = c.name?.trim();
    if (name === undefined || name === current.state.name) return { events: [], reply };
    return {
      events: [{ aggregateType: instanceKind.type, aggregateId: c.instanceId, type: 'instance.changed', owner, creator: ctx.creator, payload: { name } }],
      reply,
    };
  },
};
