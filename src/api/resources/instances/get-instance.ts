/** GetInstance: GET /resources/v3alpha/instances/{id}. */
import { z } from 'zod';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readInstance, toGetInstance } from './shared.js';

const input = z.object({ id: resourceId });

export const getInstanceRpc = defineSystemRpc({
  method: PlatformInstances.method.getInstance,
  permission: 'system.instance.read',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { instance: toGetInstance(await readInstance(call, id)) };
  },
});
