/** Creates a user schema; its type name is claimed instance-wide. The edge validated the document. */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { USER_SCHEMA_TYPE_SCOPE, userSchemaKind, userSchemaTypeKey, type Authenticator, type JsonDocument } from '../user-schema.js';

export interface CreateUserSchema {
  readonly schemaId: string;
  readonly type: string;
  readonly schema: JsonDocument;
  readonly possibleAuthenticators: readonly Authenticator[];
}

export const createUserSchema: CommandHandler<CreateUserSchema, ResourceDetails> = {
  load: (c) => [ref(userSchemaKind, c.schemaId)],
  decide(loaded, c, ctx) {
    if (loaded.get(userSchemaKind, c.schemaId).version > 0) throw alreadyExists('userschema.exists', 'the user schema already exists');
    const owner = instanceOwner(ctx.instanceId);
    return {
      events: [
        {
          aggregateType: userSchemaKind.type,
          aggregateId: c.schemaId,
          type: 'userschema.added',
          owner,
          creator: ctx.creator,
          payload: { type: c.type, schema: c.schema, possibleAuthenticators: [...new Set(c.possibleAuthenticators)] },
        },
      ],
      claims: [{ scope: USER_SCHEMA_TYPE_SCOPE, value: userSchemaTypeKey(c.type), holder: c.schemaId }],
      reply: (outcome) => detailsAfter(outcome, { id: c.schemaId, record: undefined, owner }),
    };
  },
};
