/**
 * Conditions and execution ids at the edge (seed 000 "Execution"; reference facts §3.2):
 * exactly one condition member, strings of 1..1000 characters in the documented shapes,
 * `all` must be true. Methods, services and functions must be ones this node serves or calls
 * (404 `execution.condition_invalid`, as the reference answers).
 */
import {
  canonicalExecutionId,
  conditionTypeOf,
  notFound,
  validationFailed,
  type ExecutionCondition,
  type FieldViolation,
} from '../../../../actors/index.js';
import { create } from '@bufbuild/protobuf';
import { ConditionSchema, type Condition } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import type { ExecutionCatalog } from '../../../executions/catalog.js';

const METHOD = /^\/[A-Za-z_][A-Za-z0-9_.]*\/[A-Za-z_][A-Za-z0-9_]*$/;
const SERVICE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;
const EVENT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const GROUP = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?$/;
const FUNCTION = /^[A-Za-z0-9_.-]+$/;
const SHAPES = { method: METHOD, service: SERVICE, event: EVENT, group: GROUP } as const;

/** Execution ids are derived from conditions of up to 1000 characters. */
export const MAX_EXECUTION_ID_LENGTH = 1100;

/** Shape only: the condition in domain form, or violations pushed under `field`. */
export function parseCondition(condition: Condition | undefined, field: string, v: FieldViolation[]): ExecutionCondition | undefined {
  const c = condition?.conditionType;
  if (c === undefined || c.case === undefined) {
    v.push({ field, description: 'exactly one of request, response, function or event is required' });
    return undefined;
  }
  const at = `${field}.${c.case}`;
  switch (c.case) {
    case 'function':
      return text(c.value, at, FUNCTION, v) ? { type: 'function', match: 'function', value: c.value } : undefined;
    case 'event': {
      const inner = c.value.condition;
      if (inner.case === undefined) return missing(at, 'exactly one of event, group or all is required', v);
      if (inner.case === 'all') return inner.value ? { type: 'event', match: 'all', value: '' } : missing(`${at}.all`, 'must be true', v);
      return text(inner.value, `${at}.${inner.case}`, SHAPES[inner.case], v) ? { type: 'event', match: inner.case, value: inner.value } : undefined;
    }
    default: {
      const inner = c.value.condition;
      if (inner.case === undefined) return missing(at, 'exactly one of method, service or all is required', v);
      if (inner.case === 'all') return inner.value ? { type: c.case, match: 'all', value: '' } : missing(`${at}.all`, 'must be true', v);
      return text(inner.value, `${at}.${inner.case}`, SHAPES[inner.case], v) ? { type: c.case, match: inner.case, value: inner.value } : undefined;
    }
  }
}

function missing(field: string, description: string, v: FieldViolation[]): undefined {
  v.push({ field, description });
  return undefined;
}

function text(value: string, field: string, shape: RegExp, v: FieldViolation[]): boolean {
  if (value === '') v.push({ field, description: 'required' });
  else if (value.length > 1000) v.push({ field, description: 'must be at most 1000 characters' });
  else if (!shape.test(value)) v.push({ field, description: 'has an invalid format' });
  else return true;
  return false;
}

/** Method, service and function must be in the node's lists (reference: 404 "condition invalid"). */
export function requireKnownCondition(condition: ExecutionCondition, catalog: ExecutionCatalog): void {
  const known =
    condition.match === 'method' ? catalog.methods.includes(condition.value)
    : condition.match === 'service' ? catalog.services.includes(condition.value)
    : condition.match === 'function' ? catalog.functions.includes(condition.value)
    : true;
  if (!known) throw notFound('execution.condition_invalid', 'condition invalid');
}

/** An execution id from a path, filter or include (either form) → reference form. */
export function parseExecutionId(raw: string, field: string, v: FieldViolation[]): string {
  const id = canonicalExecutionId(raw);
  if (raw === '') v.push({ field, description: 'required' });
  else if (raw.length > MAX_EXECUTION_ID_LENGTH) v.push({ field, description: `must be at most ${MAX_EXECUTION_ID_LENGTH} characters` });
  else if (conditionTypeOf(id) === undefined) v.push({ field, description: 'must be an execution id such as request/<service> or event/<event>' });
  return id;
}

export function throwIfAny(v: readonly FieldViolation[]): void {
  if (v.length > 0) throw validationFailed(v);
}

/** Domain → wire. */
export function toWireCondition(c: ExecutionCondition): Condition {
  switch (c.type) {
    case 'function':
      return create(ConditionSchema, { conditionType: { case: 'function', value: c.value } });
    case 'event': {
      const condition = c.match === 'all' ? { case: 'all' as const, value: true } : { case: c.match, value: c.value };
      return create(ConditionSchema, { conditionType: { case: 'event', value: { condition } } });
    }
    default: {
      const condition = c.match === 'all' ? { case: 'all' as const, value: true } : { case: c.match, value: c.value };
      return create(ConditionSchema, { conditionType: { case: c.type, value: { condition } } });
    }
  }
}
