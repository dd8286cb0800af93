/**
 * DeleteExecution: DELETE /resources/v3alpha/executions/{id}; the id is percent-encoded
 * (`request%2Fplatform...`), either id form. 400 `execution.included` while another execution
 * includes it.
 */
import { removeExecution, type FieldViolation } from '../../../../actors/index.js';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseExecutionId, throwIfAny } from './condition-input.js';
import { requireActionsFeature } from './shared.js';

export const deleteExecutionRpc = defineRpc({
  method: PlatformActions.method.deleteExecution,
  permission: 'action.execution.delete',
  async handle(request, call) {
    await requireActionsFeature(call);
    const v: FieldViolation[] = [];
    const executionId = parseExecutionId(request.id, 'id', v);
    throwIfAny(v);
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      removeExecution,
      { executionId },
      { creator: call.caller.userId },
    );
    call.services.executions.invalidate(call.instance.id);
    return { details: toDetails(details) };
  },
});
