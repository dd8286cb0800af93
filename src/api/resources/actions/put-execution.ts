/**
 * PutExecution: POST /resources/v3alpha/executions. Creates the execution of the condition
 * (201) or replaces its targets and includes (200). Includes may be given in either id form.
 */
import { putExecution, type FieldViolation } from '../../../../actors/index.js';
import { PlatformActions, type Execution } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseCondition, parseExecutionId, requireKnownCondition, throwIfAny } from './condition-input.js';
import { requireActionsFeature } from './shared.js';

const MAX_REFERENCES = 100;

export const putExecutionRpc = defineRpc({
  method: PlatformActions.method.putExecution,
  permission: 'action.execution.write',
  async handle(request, call) {
    await requireActionsFeature(call);
    const { condition, targets, includes } = parseExecution(request.execution);
    requireKnownCondition(condition, call.services.executions.catalog);
    const reply = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      putExecution,
      { condition, targets, includes },
      { creator: call.caller.userId },
    );
    call.setStatus(reply.created ? 201 : 200);
    return { details: toDetails(reply.details) };
  },
});

function parseExecution(execution: Execution | undefined) {
  const v: FieldViolation[] = [];
  const condition = parseCondition(execution?.condition, 'execution.condition', v);
  const targets = execution?.targets ?? [];
  references(targets, 'execution.targets', v).forEach((id, i) => {
    if (id.length > 200) v.push({ field: `execution.targets[${i}]`, description: 'must be at most 200 characters' });
  });
  const includes = references(execution?.includes ?? [], 'execution.includes', v).map((id, i) => parseExecutionId(id, `execution.includes[${i}]`, v));
  if (new Set(includes).size !== includes.length) v.push({ field: 'execution.includes', description: 'must not repeat an execution' });
  throwIfAny(v);
  return { condition: condition!, targets, includes }; // condition is set when there are no violations
}

/** Non-empty, distinct, at most MAX_REFERENCES. */
function references(ids: readonly string[], field: string, v: FieldViolation[]): readonly string[] {
  if (ids.length > MAX_REFERENCES) v.push({ field, description: `at most ${MAX_REFERENCES} entries` });
  ids.forEach((id, i) => {
    if (id === '') v.push({ field: `${field}[${i}]`, description: 'required' });
  });
  if (new Set(ids).size !== ids.length) v.push({ field, description: 'must not repeat an entry' });
  return ids;
}
