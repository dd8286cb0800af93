/** Deactivates or reactivates a user schema; asking for the current state records nothing. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { userSchemaKind } from '../user-schema.js';

export interface ChangeUserSchemaState {
  readonly schemaId: string;
  readonly active: boolean;
}

export const changeUserSchemaState: CommandHandler<ChangeUserSchemaState, ResourceDetails> = {
  load: (c) => [ref(userSchemaKind, c.schemaId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(userSchemaKind, c.schemaId).record;
    if (record === undefined) throw notFound('userschema.not_found', 'user schema not found');
    const owner = instanceOwner(ctx.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.schemaId, record, owner });
    if ((record.state.state === 'active') === c.active) return { events: [], reply };
    const type = c.active ? 'userschema.reactivated' : 'userschema.deactivated';
    return {
      events: [{ aggregateType: userSchemaKind.type, aggregateId: c.schemaId, type, owner, creator: ctx.creator, payload: {} }],
      reply,
    };
  },
};
