/**
 * Search mechanics shared by every `_search` call (seed 000 "List shapes", limits table):
 * limit default 100, maximum 1000 (above → 400), descending unless `asc`, offset paging,
 * and ListDetails with all five fields filled.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { cleanTerm, type FieldViolation, invalidArgument, type ProjectionState, validationFailed } from '../../../actors/index.js';
import {
  ListDetailsSchema,
  TextFilterMethod,
  TimestampFilterMethod,
  type ListDetails,
  type SearchQuery,
} from '../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { Condition } from './search-executor.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Most ids an `inIds` filter may list. */
export const MAX_FILTER_IDS = 1000;

export interface ListQuery {
  readonly offset: number;
  readonly limit: number;
  readonly asc: boolean;
}

export function parseListQuery(query: SearchQuery | undefined): ListQuery {
  const limit = query?.limit ?? 0;
  if (limit > MAX_LIMIT) {
    throw invalidArgument('query.limit_exceeded', `limit exceeded: at most ${MAX_LIMIT}`, {
      violations: [{ field: 'query.limit', description: `must be at most ${MAX_LIMIT}` }],
    });
  }
  const offset = query?.offset ?? 0n;
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalidArgument('query.offset_invalid', 'offset too large', {
      violations: [{ field: 'query.offset', description: 'too large' }],
    });
  }
  return { offset: Number(offset), limit: limit === 0 ? DEFAULT_LIMIT : limit, asc: query?.asc ?? false };
}

/** ListDetails of a page of `pageLength` items out of `total` matches. */
export function toListDetails(query: ListQuery, total: number, pageLength: number, projection: ProjectionState): ListDetails {
  return create(ListDetailsSchema, {
    appliedLimit: query.limit,
    endOfList: query.offset + pageLength >= total,
    totalResult: BigInt(total),
    processedSequence: BigInt(projection.position),
    ...(projection.createdAt > 0 ? { timestamp: timestampFromMs(projection.createdAt) } : {}),
  });
}

/**
 * A text filter (seed 000's eight methods) as an executor condition on a text column indexed
 * twice: `<index>` as written and `<index>_ci` lower-cased.
 */
export function textCondition(index: string, method: TextFilterMethod, wanted: string): Condition {
  const lower = wanted.toLowerCase();
  switch (method) {
    case TextFilterMethod.EQUALS:
      return { index, equals: cleanTerm(wanted) };
    case TextFilterMethod.EQUALS_IGNORE_CASE:
      return { index: `${index}_ci`, equals: cleanTerm(lower) };
    case TextFilterMethod.STARTS_WITH:
      return { index, prefix: cleanTerm(wanted) };
    case TextFilterMethod.STARTS_WITH_IGNORE_CASE:
      return { index: `${index}_ci`, prefix: cleanTerm(lower) };
    case TextFilterMethod.CONTAINS:
      return { index, contains: wanted };
    case TextFilterMethod.CONTAINS_IGNORE_CASE:
      return { index: `${index}_ci`, contains: lower };
    case TextFilterMethod.ENDS_WITH:
      return { index, suffix: wanted };
    case TextFilterMethod.ENDS_WITH_IGNORE_CASE:
      return { index: `${index}_ci`, suffix: lower };
    default:
      return 'none';
  }
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The eight TextFilterMethods of seed 000. */
export function matchesText(value: string, wanted: string, method: TextFilterMethod): boolean {
  switch (method) {
    case TextFilterMethod.EQUALS:
      return value === wanted;
    case TextFilterMethod.EQUALS_IGNORE_CASE:
      return value.toLowerCase() === wanted.toLowerCase();
    case TextFilterMethod.STARTS_WITH:
      return value.startsWith(wanted);
    case TextFilterMethod.STARTS_WITH_IGNORE_CASE:
      return value.toLowerCase().startsWith(wanted.toLowerCase());
    case TextFilterMethod.CONTAINS:
      return value.includes(wanted);
    case TextFilterMethod.CONTAINS_IGNORE_CASE:
      return value.toLowerCase().includes(wanted.toLowerCase());
    case TextFilterMethod.ENDS_WITH:
      return value.endsWith(wanted);
    case TextFilterMethod.ENDS_WITH_IGNORE_CASE:
      return value.toLowerCase().endsWith(wanted.toLowerCase());
    default:
      return false;
  }
}

/** One check of a filter message's field; `problem` answers the violation text or undefined. */
export interface FilterRule<M> {
  /** The field inside the filter message, e.g. `name` → violation `filters[i].<case>.name`. */
  readonly field: string;
  problem(message: M): string | undefined;
}

type FilterOneof<F> = F extends { readonly filter: infer O } ? O : never;
type FilterCase<F> = Extract<FilterOneof<F> extends { readonly case: infer C } ? C : never, string>;
type FilterValue<F, C> = Extract<FilterOneof<F>, { readonly case: C }> extends { readonly value: infer V } ? V : never;

/** The checks per filter case (`oneof filter` of a search filter message). */
export type FilterRules<F> = { readonly [C in FilterCase<F>]?: readonly FilterRule<FilterValue<F, C>>[] };

/**
 * Validates search filters (ANDed list of one-of messages): every entry must set exactly one
 * filter, and the set one must pass its case's rules. All violations are reported at once (400).
 */
export function validateSearchFilters<F extends { readonly filter: { readonly case: string | undefined } }>(filters: readonly F[], rules: FilterRules<F>): void {
  const violations: FieldViolation[] = [];
  const byCase = rules as Readonly<Record<string, readonly FilterRule<unknown>[] | undefined>>;
  filters.forEach((entry, i) => {
    const { case: name, value } = entry.filter as { readonly case: string | undefined; readonly value?: unknown };
    if (name === undefined) {
      violations.push({ field: `filters[${i}]`, description: 'exactly one filter must be set' });
      return;
    }
    for (const rule of byCase[name] ?? []) {
      const problem = rule.problem(value);
      if (problem !== undefined) violations.push({ field: `filters[${i}].${name}.${rule.field}`, description: problem });
    }
  });
  if (violations.length > 0) throw validationFailed(violations);
}

/** A text field of at most `max` characters (may be empty). */
export function maxChars<K extends string>(field: K, max = 200): FilterRule<{ readonly [P in K]: string }> {
  return { field, problem: (m) => (m[field].length > max ? `must be at most ${max} characters` : undefined) };
}

/** A required id-like field: 1..`max` characters. */
export function requiredChars<K extends string>(field: K, max = 200): FilterRule<{ readonly [P in K]: string }> {
  return { field, problem: (m) => (m[field] === '' || m[field].length > max ? `must be 1..${max} characters` : undefined) };
}

/** An `ids` list of at most MAX_FILTER_IDS entries. */
export function maxIds(): FilterRule<{ readonly ids: readonly string[] }> {
  return { field: 'ids', problem: (m) => (m.ids.length > MAX_FILTER_IDS ? `at most ${MAX_FILTER_IDS} ids` : undefined) };
}

/** An enum field that must not be its UNSPECIFIED (0) value; `what` names it in the message. */
export function specified<K extends string>(field: K, what: string): FilterRule<{ readonly [P in K]: number }> {
  return { field, problem: (m) => (m[field] === 0 ? `must be a defined ${what}` : undefined) };
}

/** An enum field whose value must be one the enum defines (protobuf keeps unknown numbers). */
export function knownEnum<K extends string>(field: K, values: Readonly<Record<number, string>>): FilterRule<{ readonly [P in K]: number }> {
  return { field, problem: (m) => (values[m[field]] === undefined ? 'must be a defined value' : undefined) };
}

/** A message field that must be present. */
export function present<K extends string>(field: K): FilterRule<{ readonly [P in K]?: unknown }> {
  return { field, problem: (m) => (m[field] === undefined ? 'required' : undefined) };
}

/**
 * A timestamp filter against a value: epoch milliseconds, or index terms of epoch milliseconds
 * (fixed width, so they compare as the numbers do).
 */
export function matchesTimestamp<T extends number | string>(value: T, wanted: T, method: TimestampFilterMethod): boolean {
  switch (method) {
    case TimestampFilterMethod.EQUALS:
      return value === wanted;
    case TimestampFilterMethod.GREATER:
      return value > wanted;
    case TimestampFilterMethod.GREATER_OR_EQUALS:
      return value >= wanted;
    case TimestampFilterMethod.LESS:
      return value < wanted;
    case TimestampFilterMethod.LESS_OR_EQUALS:
      return value <= wanted;
    default:
      return false;
  }
}
