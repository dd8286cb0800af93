/** Read shapes and lookups shared by the action service operations. */
import { create } from '@bufbuild/protobuf';
import {
  type AggregateRecord,
  detailsOf,
  entryDetails,
  type ExecutionEntry,
  instanceOwner,
  notFound,
  type Target,
  targetKind,
} from '../../../../actors/index.js';
import { GetExecutionSchema, GetTargetSchema, type GetExecution, type GetTarget } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails } from '../../shared/convert.js';
import { requireFeature } from '../../../query/features.js';
import { toWireCondition } from './condition-input.js';

/** Target signing keys: 36 characters of [A-Za-z0-9] (reference facts §3.1). */
export const SIGNING_KEY_LENGTH = 36;

/** Every action service call needs the instance feature flag `multitenancy_resources_api`. */
export function requireActionsFeature(call: CallContext): Promise<void> {
  return requireFeature(call.services.actors, call.instance.id, 'multitenancy_resources_api');
}

export function toGetTarget(record: AggregateRecord<Target>): GetTarget {
  const t = record.state;
  const endpoint = { url: t.url };
  return create(GetTargetSchema, {
    details: toDetails(detailsOf(record)),
    target: {
      name: t.name,
      targetType: t.targetType === 'rest_webhook' ? { case: 'restWebhook', value: endpoint } : { case: 'restRequestResponse', value: endpoint },
      timeout: { seconds: BigInt(Math.floor(t.timeoutNanos / 1e9)), nanos: t.timeoutNanos % 1e9 },
      executionType:
        t.executionType === 'async' ? { case: 'isAsync', value: true }
        : t.executionType === 'interrupt' ? { case: 'interruptOnError', value: true }
        : { case: undefined },
    },
  });
}

export function toGetExecution(instanceId: string, id: string, entry: ExecutionEntry): GetExecution {
  return create(GetExecutionSchema, {
    details: toDetails(entryDetails(id, entry, instanceOwner(instanceId))),
    execution: { condition: toWireCondition(entry.condition), targets: [...entry.targets], includes: [...entry.includes] },
  });
}

export async function readTarget(call: CallContext, id: string): Promise<AggregateRecord<Target>> {
  const record = await call.services.actors.readRecord(call.instance.id, targetKind, id);
  if (record === undefined) throw notFound('target.not_found', 'target not found');
  return record;
}
