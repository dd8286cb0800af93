/**
 * Search mechanics shared by every `_search` call (seed 000 "List shapes", limits table):
 * limit default 100, maximum 1000 (above → 400), descending unless `asc`, offset paging,
 * and ListDetails with all five fields filled.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { invalidArgument, type ProjectionState } from '../../../actors/index.js';
import {
  ListDetailsSchema,
  TextFilterMethod,
  type ListDetails,
  type SearchQuery,
} from '../../gen/platform/resources/object/v3alpha/object_pb.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

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

export interface Page<T> {
  readonly items: readonly T[];
  readonly details: ListDetails;
}

/** Sorts (stable, ties broken by id), then applies offset and limit. */
export function paginate<T extends { readonly id: string }>(
  items: T[],
  compare: (a: T, b: T) => number,
  query: ListQuery,
  projection: ProjectionState,
): Page<T> {
  const direction = query.asc ? 1 : -1;
  items.sort((a, b) => direction * (compare(a, b) || compareStrings(a.id, b.id)));
  const page = items.slice(query.offset, query.offset + query.limit);
  return {
    items: page,
    details: create(ListDetailsSchema, {
      appliedLimit: query.limit,
      endOfList: query.offset + page.length >= items.length,
      totalResult: BigInt(items.length),
      processedSequence: BigInt(projection.position),
      ...(projection.createdAt > 0 ? { timestamp: timestampFromMs(projection.createdAt) } : {}),
    }),
  };
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareNumbers(a: number, b: number): number {
  return a - b;
}

/** Ids are decimal strings of varying length: compare numerically when both are numeric. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length && /^\d+$/.test(a) && /^\d+$/.test(b)) return a.length - b.length;
  return compareStrings(a, b);
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
