/**
 * DeleteInstance: DELETE /resources/v3alpha/instances/{id}. The directory entry and its
 * domains go at once (its Hosts answer 404); the instance's data stays, unreachable.
 */
import { z } from 'zod';
import { removeInstance } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { refreshDirectory } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteInstanceRpc = defineSystemRpc({
  method: PlatformInstances.method.deleteInstance,
  permission: 'system.instance.delete',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'system' }, removeInstance, { instanceId: id }, { creator: call.creator });
    await refreshDirectory(call, id);
    return { details: toDetails(details) };
  },
});
