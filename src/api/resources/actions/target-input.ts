/**
 * Shape checks of a target at the edge (seed 000 "Target"; reference facts §1.5): exactly one
 * target type with an http(s) URL of 1..1000 characters, a name of 1..200, 0 < timeout ≤ 270 s,
 * at most one of isAsync / interruptOnError (the oneof already guarantees that).
 */
import {
  MAX_TARGET_TIMEOUT_NANOS,
  validationFailed,
  type FieldViolation,
  type TargetExecutionType,
  type TargetType,
} from '../../../../actors/index.js';
import type { Duration } from '@bufbuild/protobuf/wkt';
import type { PatchTarget, Target } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';

/** Grace period of a rotated signing key: at most 30 days. */
export const MAX_KEY_GRACE_MS = 30 * 24 * 3_600_000;

export interface TargetInput {
  readonly name: string;
  readonly endpoint: { readonly targetType: TargetType; readonly url: string };
  readonly timeoutNanos: number;
  readonly executionType: TargetExecutionType;
}

export type TargetPatchInput = Partial<TargetInput> & { readonly rotateGraceMs?: number };

export function parseTargetInput(target: Target | undefined): TargetInput {
  const v: FieldViolation[] = [];
  if (target === undefined) throw validationFailed([{ field: 'target', description: 'required' }]);
  const name = checkName(target.name, v);
  const endpoint = checkEndpoint(target.targetType, v);
  if (endpoint === undefined && target.targetType.case === undefined) {
    v.push({ field: 'target.restWebhook', description: 'exactly one of restWebhook or restRequestResponse is required' });
  }
  const timeoutNanos = checkTimeout(target.timeout, 'target.timeout', v);
  if (v.length > 0 || endpoint === undefined || timeoutNanos === undefined) throw validationFailed(v);
  return { name, endpoint, timeoutNanos, executionType: executionTypeOf(target.executionType) };
}

export function parsePatchInput(target: PatchTarget | undefined): TargetPatchInput {
  if (target === undefined) return {};
  const v: FieldViolation[] = [];
  const name = target.name === undefined ? undefined : checkName(target.name, v);
  const endpoint = checkEndpoint(target.targetType, v);
  const timeoutNanos = target.timeout === undefined ? undefined : checkTimeout(target.timeout, 'target.timeout', v);
  const rotateGraceMs = target.expirationSigningKey === undefined ? undefined : checkGrace(target.expirationSigningKey, v);
  if (v.length > 0) throw validationFailed(v);
  return {
    ...(name === undefined ? {} : { name }),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(timeoutNanos === undefined ? {} : { timeoutNanos }),
    ...(target.executionType.case === undefined ? {} : { executionType: executionTypeOf(target.executionType) }),
    ...(rotateGraceMs === undefined ? {} : { rotateGraceMs }),
  };
}

function checkName(raw: string, v: FieldViolation[]): string {
  const name = raw.trim();
  if (name === '') v.push({ field: 'target.name', description: 'required' });
  else if (name.length > 200) v.push({ field: 'target.name', description: 'must be at most 200 characters' });
  return name;
}

function checkEndpoint(type: Target['targetType'], v: FieldViolation[]): TargetInput['endpoint'] | undefined {
  if (type.case === undefined) return undefined;
  const field = `target.${type.case}.url`;
  const url = type.value.url;
  if (url === '') v.push({ field, description: 'required' });
  else if (url.length > 1000) v.push({ field, description: 'must be at most 1000 characters' });
  else if (!isHttpUri(url)) v.push({ field, description: 'must be an absolute http or https URI' });
  else return { targetType: type.case === 'restWebhook' ? 'rest_webhook' : 'rest_request_response', url };
  return undefined;
}

function isHttpUri(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

function toNanos(d: Duration): number {
  return Number(d.seconds) * 1e9 + d.nanos;
}

function checkTimeout(d: Duration | undefined, field: string, v: FieldViolation[]): number | undefined {
  if (d === undefined) {
    v.push({ field, description: 'required' });
    return undefined;
  }
  const nanos = toNanos(d);
  if (!(nanos > 0 && nanos <= MAX_TARGET_TIMEOUT_NANOS)) {
    v.push({ field, description: 'must be greater than 0s and at most 270s' });
    return undefined;
  }
  return nanos;
}

function checkGrace(d: Duration, v: FieldViolation[]): number | undefined {
  const ms = toNanos(d) / 1e6;
  if (!(ms >= 0 && ms <= MAX_KEY_GRACE_MS)) {
    v.push({ field: 'target.expirationSigningKey', description: 'must be between 0s and 30 days' });
    return undefined;
  }
  return Math.floor(ms);
}

function executionTypeOf(type: Target['executionType']): TargetExecutionType {
  if (type.case === 'isAsync' && type.value) return 'async';
  if (type.case === 'interruptOnError' && type.value) return 'interrupt';
  return 'none';
}
