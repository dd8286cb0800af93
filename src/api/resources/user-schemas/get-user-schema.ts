/** GetUserSchema: GET /resources/v3alpha/user_schemas/{id} (`userschema.read`). */
import { z } from 'zod';
import { PlatformUserSchemas } from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readUserSchema, toGetUserSchema } from './shared.js';

const input = z.object({ id: resourceId });

export const getUserSchemaRpc = defineRpc({
  method: PlatformUserSchemas.method.getUserSchema,
  permission: 'userschema.read',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { userSchema: toGetUserSchema(await readUserSchema(call, id)) };
  },
});
