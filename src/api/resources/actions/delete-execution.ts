/**
 * DeleteExecution: DELETE /resources/v3alpha/executions/{id}; the id is percent-encoded
 * (`request%2Fplatform...`), either id form. An id that names no execution is 404
 * `execution.not_found` whatever its shape (issue #12 item 15); 400 `execution.included` while
 * another execution includes it.
 */
import { conditionTypeOf, canonicalExecutionId, notFound, removeExecution } from '../../../../actors/index.js';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { MAX_EXECUTION_ID_LENGTH } from './condition-input.js';
import { requireActionsFeature } from './shared.js';

export const deleteExecutionRpc = defineRpc({
  method: PlatformActions.method.deleteExecution,
  permission: 'action.execution.delete',
  async handle(request, call) {
    await requireActionsFeature(call);
    const executionId = canonicalExecutionId(request.id);
    if (request.id.length > MAX_EXECUTION_ID_LENGTH || conditionTypeOf(executionId) === undefined) throw executionNotFound();
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      removeExecution,
      { executionId },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

/** The same answer the instance gives for a well-formed id it has no execution for. */
export function executionNotFound() {
  return notFound('execution.not_found', 'execution not found');
}
