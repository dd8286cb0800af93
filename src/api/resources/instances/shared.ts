/** Instance read shapes, lookups and input shapes shared by the PlatformInstances operations. */
import { create } from '@bufbuild/protobuf';
import { durationFromMs, durationMs, type Duration } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import {
  type AggregateRecord,
  detailsOf,
  type InstanceEntry,
  instanceKind,
  limitsOf,
  notFound,
  SYSTEM_TENANT,
} from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { GetInstanceSchema, type GetInstance } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import type { SystemCallContext } from '../../system-auth.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';

export type InstanceRow = AggregateRecord<InstanceEntry>;

export function toGetInstance(record: InstanceRow): GetInstance {
  const limits = limitsOf(record.state);
  return create(GetInstanceSchema, {
    details: toDetails(detailsOf(record)),
    instance: { name: record.state.name },
    state: State.EFFECTIVE_STATE_ACTIVE,
    domains: [...record.state.domains],
    limits: {
      block: limits.block,
      ...(limits.auditLogRetentionMs > 0 ? { auditLogRetention: durationFromMs(limits.auditLogRetentionMs) } : {}),
    },
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

export async function readInstance(call: SystemCallContext, id: string): Promise<InstanceRow> {
  const record = await call.services.actors.readRecord(SYSTEM_TENANT, instanceKind, id);
  if (record === undefined) throw notFound('instance.not_found', 'instance not found');
  return record;
}

/** Applies a directory change to this node's Host resolution at once. */
export async function refreshDirectory(call: SystemCallContext, instanceId: string): Promise<void> {
  await call.services.tenants.refresh(instanceId);
}

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';

/** A host name as an instance domain: lower-cased, no scheme, no port, labels of ≤ 63 characters. */
export const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'required')
  .max(253, 'must be at most 253 characters')
  .regex(new RegExp(`^${label}(?:\\.${label})*$`), 'must be a host name without scheme or port');

export const instanceName = z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters');

const MAX_RETENTION_MS = 100 * 365 * 86_400_000;

/** An audit log retention: 0 (unlimited) up to 100 years, in milliseconds. */
export const retention = z
  .custom<Duration>((value) => typeof value === 'object' && value !== null, 'must be a duration')
  .transform((value) => durationMs(value))
  .refine((ms) => ms >= 0 && ms <= MAX_RETENTION_MS, 'must be between 0s (unlimited) and 100 years');
