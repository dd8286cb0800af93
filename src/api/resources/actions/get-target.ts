/** GetTarget: GET /resources/v3alpha/targets/{id} (never the signing key). */
import { z } from 'zod';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readTarget, requireActionsFeature, toGetTarget } from './shared.js';

const input = z.object({ id: resourceId });

export const getTargetRpc = defineRpc({
  method: PlatformActions.method.getTarget,
  permission: 'action.target.read',
  async handle(request, call) {
    await requireActionsFeature(call);
    const { id } = parseWith(input, request);
    return { target: toGetTarget(await readTarget(call, id)) };
  },
});
