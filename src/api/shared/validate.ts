/**
 * Shape validation at the edge with zod: failures become one `invalid_argument` listing
 * every field (JSON names, dotted, with [i] for list items). Business rules are the actors'.
 */
import { z } from 'zod';
import { validationFailed, type FieldViolation } from '../../../actors/index.js';

export function parseWith<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(result.error.issues.map((issue) => toViolation(issue, prefix)));
}

export function toViolation(issue: z.core.$ZodIssue, prefix = ''): FieldViolation {
  let field = prefix;
  for (const part of issue.path) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return { field, description: issue.message };
}

/** A resource id in a path: 1..200 characters (seed 000 limits). */
export const resourceId = z.string().min(1, 'required').max(200, 'must be at most 200 characters');

/** A name filter value: at most 200 characters. */
export const filterText = z.string().max(200, 'must be at most 200 characters');
