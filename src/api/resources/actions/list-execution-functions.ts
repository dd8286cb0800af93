/** ListAvailableExecutionFunctions: GET /resources/v3alpha/executions/functions (computed once at start; src/executions/catalog.ts). */
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { requireActionsFeature } from './shared.js';

export const listAvailableExecutionFunctionsRpc = defineRpc({
  method: PlatformActions.method.listAvailableExecutionFunctions,
  permission: 'execution.read',
  async handle(_request, call) {
    await requireActionsFeature(call);
    return { functions: [...call.services.executions.catalog.functions] };
  },
});
