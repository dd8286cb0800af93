/**
 * PatchUserSchema: PATCH /resources/v3alpha/user_schemas/{id} (`userschema.write`). Absent
 * fields (and an empty authenticator list) stay unchanged; a new schema document is validated
 * and increments the revision; a patch that changes nothing records nothing.
 */
import { z } from 'zod';
import { patchUserSchema } from '../../../../actors/index.js';
import { PlatformUserSchemas } from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { authenticatorList, parseAuthenticators, parseSchemaDocument, schemaType } from './shared.js';

const input = z.object({
  id: resourceId,
  userSchema: z.object({ type: schemaType.optional(), possibleAuthenticators: authenticatorList }).optional(),
});

export const patchUserSchemaRpc = defineRpc({
  method: PlatformUserSchemas.method.patchUserSchema,
  permission: 'userschema.write',
  async handle(request, call) {
    const { id, userSchema } = parseWith(input, request);
    const document = request.userSchema?.schema;
    const schema = document === undefined ? undefined : await parseSchemaDocument(document, 'userSchema.schema');
    const authenticators = userSchema?.possibleAuthenticators ?? [];
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      patchUserSchema,
      {
        schemaId: id,
        ...(userSchema?.type === undefined ? {} : { type: userSchema.type }),
        ...(schema === undefined ? {} : { schema }),
        ...(authenticators.length === 0 ? {} : { possibleAuthenticators: parseAuthenticators(authenticators) }),
      },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
