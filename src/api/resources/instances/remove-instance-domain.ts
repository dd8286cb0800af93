/**
 * RemoveInstanceDomain: DELETE /resources/v3alpha/instances/{instance_id}/domains/{domain}.
 * The Host stops resolving at once; the last domain of an instance cannot be removed.
 */
import { z } from 'zod';
import { removeInstanceDomain } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { hostName, refreshDirectory } from './shared.js';

const input = z.object({ instanceId: resourceId, domain: hostName });

export const removeInstanceDomainRpc = defineSystemRpc({
  method: PlatformInstances.method.removeInstanceDomain,
  permission: 'system.domain.delete',
  async handle(request, call) {
    const { instanceId, domain } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'system' }, removeInstanceDomain, { instanceId, domain }, { creator: call.creator });
    await refreshDirectory(call, instanceId);
    return { details: toDetails(details) };
  },
});
