/** ListAvailableExecutionMethods: GET /resources/v3alpha/executions/methods (computed once at start; src/executions/catalog.ts). */
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { requireActionsFeature } from './shared.js';

export const listAvailableExecutionMethodsRpc = defineRpc({
  method: PlatformActions.method.listAvailableExecutionMethods,
  permission: 'execution.read',
  async handle(_request, call) {
    await requireActionsFeature(call);
    return { methods: [...call.services.executions.catalog.methods] };
  },
});
