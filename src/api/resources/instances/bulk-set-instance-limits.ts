/**
 * BulkSetInstanceLimits (seed "BulkLimit"): POST /resources/v3alpha/instances/_bulk_limit, the
 * partial limits update for several instances in one append: all of them change, or none.
 */
import { z } from 'zod';
import { setInstanceLimits } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { refreshDirectory, retention } from './shared.js';

const input = z.object({
  limits: z
    .array(z.object({ instanceId: resourceId, block: z.boolean().optional(), auditLogRetention: retention.optional() }))
    .min(1, 'at least one update')
    .max(1000, 'at most 1000 updates'),
});

export const bulkSetInstanceLimitsRpc = defineSystemRpc({
  method: PlatformInstances.method.bulkSetInstanceLimits,
  permission: 'system.limits.write',
  async handle(request, call) {
    const { limits } = parseWith(input, request);
    const updates = limits.map((l) => ({
      instanceId: l.instanceId,
      ...(l.block === undefined ? {} : { block: l.block }),
      ...(l.auditLogRetention === undefined ? {} : { auditLogRetentionMs: l.auditLogRetention }),
    }));
    const details = await call.services.actors.ask({ kind: 'system' }, setInstanceLimits, { updates }, { creator: call.creator });
    for (const update of updates) await refreshDirectory(call, update.instanceId);
    return { details: details.map(toDetails) };
  },
});
