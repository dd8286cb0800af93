/** ListInstanceDomains: GET /resources/v3alpha/instances/{instance_id}/domains; the first is primary. */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { ListDetailsSchema } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readInstance } from './shared.js';

const input = z.object({ instanceId: resourceId });

export const listInstanceDomainsRpc = defineSystemRpc({
  method: PlatformInstances.method.listInstanceDomains,
  permission: 'system.domain.read',
  async handle(request, call) {
    const { instanceId } = parseWith(input, request);
    const record = await readInstance(call, instanceId);
    const domains = record.state.domains;
    return {
      details: create(ListDetailsSchema, {
        appliedLimit: domains.length,
        endOfList: true,
        totalResult: BigInt(domains.length),
        processedSequence: BigInt(record.meta.sequence),
        ...(record.meta.changedAt > 0 ? { timestamp: timestampFromMs(record.meta.changedAt) } : {}),
      }),
      result: domains.map((domain, i) => ({ domain, primary: i === 0 })),
    };
  },
});
