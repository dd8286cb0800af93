/** PatchInstance: PATCH /resources/v3alpha/instances/{id}; absent fields stay unchanged. */
import { z } from 'zod';
import { patchInstance } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { instanceName, refreshDirectory } from './shared.js';

const input = z.object({
  id: resourceId,
  instance: z.object({ name: instanceName.optional() }).optional(),
});

export const patchInstanceRpc = defineSystemRpc({
  method: PlatformInstances.method.patchInstance,
  permission: 'system.instance.write',
  async handle(request, call) {
    const { id, instance } = parseWith(input, request);
    const details = await call.services.actors.ask(
      { kind: 'system' },
      patchInstance,
      { instanceId: id, ...(instance?.name === undefined ? {} : { name: instance.name }) },
      { creator: call.creator },
    );
    await refreshDirectory(call, id);
    return { details: toDetails(details) };
  },
});
