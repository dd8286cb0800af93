/** DeleteUserSchema: DELETE /resources/v3alpha/user_schemas/{id} (`userschema.delete`); the type name is free again. */
import { z } from 'zod';
import { removeUserSchema } from '../../../../actors/index.js';
import { PlatformUserSchemas } from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

export const deleteUserSchemaRpc = defineRpc({
  method: PlatformUserSchemas.method.deleteUserSchema,
  permission: 'userschema.delete',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'instance', instanceId: call.instance.id }, removeUserSchema, { schemaId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
