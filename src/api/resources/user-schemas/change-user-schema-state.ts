/** POST /resources/v3alpha/user_schemas/{id}/_activate and _deactivate (`userschema.write`). */
import { z } from 'zod';
import { changeUserSchemaState } from '../../../../actors/index.js';
import { PlatformUserSchemas } from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

type StateMethod = typeof PlatformUserSchemas.method.activateUserSchema;

function defineStateRpc(method: StateMethod, active: boolean) {
  return defineRpc({
    method,
    permission: 'userschema.write',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const details = await call.services.actors.ask(
        { kind: 'instance', instanceId: call.instance.id },
        changeUserSchemaState,
        { schemaId: id, active },
        { creator: call.caller.userId },
      );
      return { details: toDetails(details) };
    },
  });
}

export const activateUserSchemaRpc = defineStateRpc(PlatformUserSchemas.method.activateUserSchema, true);
export const deactivateUserSchemaRpc = defineStateRpc(PlatformUserSchemas.method.deactivateUserSchema, false);
