/** ListAvailableExecutionServices: GET /resources/v3alpha/executions/services (computed once at start; src/executions/catalog.ts). */
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { requireActionsFeature } from './shared.js';

export const listAvailableExecutionServicesRpc = defineRpc({
  method: PlatformActions.method.listAvailableExecutionServices,
  permission: 'execution.read',
  async handle(_request, call) {
    await requireActionsFeature(call);
    return { services: [...call.services.executions.catalog.services] };
  },
});
