/** Removes a user schema and frees its type name. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { USER_SCHEMA_TYPE_SCOPE, userSchemaKind, userSchemaTypeKey } from '../user-schema.js';

export interface RemoveUserSchema {
  readonly schemaId: string;
}

export const removeUserSchema: CommandHandler<RemoveUserSchema, ResourceDetails> = {
  load: (c) => [ref(userSchemaKind, c.schemaId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(userSchemaKind, c.schemaId).record;
    if (record === undefined) throw notFound('userschema.not_found', 'user schema not found');
    const owner = instanceOwner(ctx.instanceId);
    return {
      events: [{ aggregateType: userSchemaKind.type, aggregateId: c.schemaId, type: 'userschema.removed', owner, creator: ctx.creator, payload: {} }],
      releases: [{ scope: USER_SCHEMA_TYPE_SCOPE, value: userSchemaTypeKey(record.state.type) }],
      reply: (outcome) => detailsAfter(outcome, { id: c.schemaId, record, owner }),
    };
  },
};
