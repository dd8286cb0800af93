/**
 * AddInstanceDomain: POST /resources/v3alpha/instances/{instance_id}/domains. The domain
 * resolves to the instance on this node at once; taken by another instance → 409.
 */
import { z } from 'zod';
import { addInstanceDomain } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { hostName, refreshDirectory } from './shared.js';

const input = z.object({
  instanceId: resourceId,
  domain: z.object({ domain: hostName }, 'required'),
});

export const addInstanceDomainRpc = defineSystemRpc({
  method: PlatformInstances.method.addInstanceDomain,
  permission: 'system.domain.write',
  created: true,
  async handle(request, call) {
    const { instanceId, domain } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'system' }, addInstanceDomain, { instanceId, domain: domain.domain }, { creator: call.creator });
    await refreshDirectory(call, instanceId);
    return { details: toDetails(details) };
  },
});
