/** CreateUserSchema: POST /resources/v3alpha/user_schemas → 201 (`userschema.write`; instance-owned). */
import { z } from 'zod';
import { createUserSchema } from '../../../../actors/index.js';
import { PlatformUserSchemas } from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { authenticatorList, parseAuthenticators, parseSchemaDocument, schemaType } from './shared.js';

const input = z.object({
  userSchema: z.object({ type: schemaType, possibleAuthenticators: authenticatorList }, 'required'),
});

export const createUserSchemaRpc = defineRpc({
  method: PlatformUserSchemas.method.createUserSchema,
  permission: 'userschema.write',
  created: true,
  async handle(request, call) {
    const { userSchema } = parseWith(input, request);
    const schema = await parseSchemaDocument(request.userSchema?.schema, 'userSchema.schema');
    const schemaId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      createUserSchema,
      { schemaId, type: userSchema.type, schema, possibleAuthenticators: parseAuthenticators(userSchema.possibleAuthenticators) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
