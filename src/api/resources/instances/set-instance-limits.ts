/**
 * SetInstanceLimits (seed "Limit"): POST /resources/v3alpha/instances/{id}/_limit, a partial
 * update of `block` and `auditLogRetention` (0s: unlimited). Blocking applies on this node at once.
 */
import { z } from 'zod';
import { setInstanceLimits } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { refreshDirectory, retention } from './shared.js';

const input = z.object({
  id: resourceId,
  limits: z.object({ block: z.boolean().optional(), auditLogRetention: retention.optional() }).optional(),
});

export const setInstanceLimitsRpc = defineSystemRpc({
  method: PlatformInstances.method.setInstanceLimits,
  permission: 'system.limits.write',
  async handle(request, call) {
    const { id, limits } = parseWith(input, request);
    const update = {
      instanceId: id,
      ...(limits?.block === undefined ? {} : { block: limits.block }),
      ...(limits?.auditLogRetention === undefined ? {} : { auditLogRetentionMs: limits.auditLogRetention }),
    };
    const [details] = await call.services.actors.ask({ kind: 'system' }, setInstanceLimits, { updates: [update] }, { creator: call.creator });
    await refreshDirectory(call, id);
    return details === undefined ? {} : { details: toDetails(details) };
  },
});
