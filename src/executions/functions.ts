/**
 * Function conditions (reference facts §3.4): `preuserinfo` and `preaccesstoken` targets may
 * add claims and user metadata. Answers are merged into one result (a later target's list
 * replaces an earlier one for the same key); claims never override existing ones, reserved
 * `urn:platform:iam` claims are ignored, and log lines go to
 * `urn:platform:iam:action:<function>:log`.
 */
import type { ExecutionFunction } from './catalog.js';

/** What Tessera sends (OIDC code fills it): `userinfo` holds the claims assembled so far. */
export interface FunctionPayload {
  readonly userinfo?: Readonly<Record<string, unknown>>;
  readonly user?: unknown;
  readonly user_metadata?: readonly unknown[];
  readonly org?: unknown;
  readonly user_grants?: readonly unknown[];
  readonly application?: { readonly client_id: string };
}

export interface FunctionAnswer {
  readonly set_user_metadata?: readonly { key: string; value: string }[];
  readonly append_claims?: readonly { key: string; value: unknown }[];
  readonly append_log_claims?: readonly string[];
}

export interface FunctionOutcome {
  /** Claims to add (the log claim included when there is anything to log). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** User metadata to write on the subject (base64 values, as sent by the target). */
  readonly userMetadata: readonly { key: string; value: string }[];
}

const RESERVED_PREFIX = 'urn:platform:iam';

export function logClaimName(fn: ExecutionFunction): string {
  return `urn:platform:iam:action:${fn}:log`;
}

/** Decodes each answer into one shared result, as the reference does (later lists win). */
export function mergeAnswers(answers: readonly unknown[]): FunctionAnswer {
  let merged: FunctionAnswer = {};
  for (const answer of answers) {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) continue;
    const a = answer as Record<string, unknown>;
    merged = {
      ...merged,
      ...(Array.isArray(a.set_user_metadata) ? { set_user_metadata: a.set_user_metadata.filter(isMetadata) } : {}),
      ...(Array.isArray(a.append_claims) ? { append_claims: a.append_claims.filter(isClaim) } : {}),
      ...(Array.isArray(a.append_log_claims) ? { append_log_claims: a.append_log_claims.filter((l): l is string => typeof l === 'string') } : {}),
    };
  }
  return merged;
}

/** Applies a merged answer to the claims assembled so far. */
export function applyFunctionAnswer(fn: ExecutionFunction, existing: Readonly<Record<string, unknown>>, answer: FunctionAnswer): FunctionOutcome {
  const claims: Record<string, unknown> = {};
  const logs = [...(answer.append_log_claims ?? [])];
  for (const { key, value } of answer.append_claims ?? []) {
    if (key.startsWith(RESERVED_PREFIX)) continue;
    if (Object.hasOwn(existing, key) || Object.hasOwn(claims, key)) {
      logs.push(`key "${key}" already exists`);
      continue;
    }
    claims[key] = value;
  }
  if (logs.length > 0) claims[logClaimName(fn)] = logs;
  return { claims, userMetadata: answer.set_user_metadata ?? [] };
}

function isClaim(x: unknown): x is { key: string; value: unknown } {
  return typeof x === 'object' && x !== null && typeof (x as { key?: unknown }).key === 'string' && (x as { key: string }).key !== '';
}

function isMetadata(x: unknown): x is { key: string; value: string } {
  return isClaim(x) && typeof (x as { value?: unknown }).value === 'string';
}
