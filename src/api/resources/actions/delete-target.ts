/** DeleteTarget: DELETE /resources/v3alpha/targets/{id}; also takes the target out of every execution. */
import { z } from 'zod';
import { removeTarget } from '../../../../actors/index.js';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireActionsFeature } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteTargetRpc = defineRpc({
  method: PlatformActions.method.deleteTarget,
  permission: 'action.target.delete',
  async handle(request, call) {
    await requireActionsFeature(call);
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      removeTarget,
      { targetId: id },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
