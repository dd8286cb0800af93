/**
 * A resource search as a declaration (docs/development.md §3): the table's indexes, the index
 * behind each sorting column, the filter rules and how each filter becomes a condition. The
 * handler adds who may see what (`access`) and turns the rows it gets into wire messages;
 * parsing, validation, the executor run and ListDetails are done here, the same for all.
 */
import type { TableIndexes } from '../../../actors/index.js';
import type { ListDetails, SearchQuery } from '../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { CallContext } from '../call-context.js';
import { type Condition, executeSearch, type SearchPlan } from './search-executor.js';
import { type FilterRules, parseListQuery, toListDetails, validateSearchFilters } from './search.js';

/** What a search needs of its call: the node's services and, for tenant searches, the instance. */
export interface SearchCall {
  readonly services: CallContext['services'];
  readonly instance?: { readonly id: string };
}

export interface SearchDeclaration<F, C extends SearchCall = CallContext> {
  readonly table: TableIndexes;
  /** The index of each sorting column; UNSPECIFIED (0) must be present (it is the default). */
  readonly sort: Readonly<Record<number, string>>;
  readonly rules: FilterRules<F>;
  condition(filter: F, call: C): Condition | Promise<Condition>;
}

/** Who may see what: the executor's visibility rules, plus conditions of the call (org ctx). */
export type SearchAccess<R> = Pick<SearchPlan<R>, 'visible' | 'scopeOnly' | 'scopeRows' | 'rowCheck'> & {
  /** The tenant searched (default: the call's instance). */
  readonly instanceId?: string;
  readonly conditions?: readonly Condition[];
};

interface SearchRequest<F> {
  readonly query?: SearchQuery | undefined;
  readonly filters: readonly F[];
  readonly sortingColumn?: number;
}

/**
 * The request checks runSearch starts with (query, filters: 400 naming the field), for handlers
 * that must refuse bad input before they look the parent up (a search inside one row).
 */
export function checkSearchRequest<F extends { readonly filter: { readonly case: string | undefined } }, C extends SearchCall>(
  declaration: SearchDeclaration<F, C>,
  request: SearchRequest<F>,
): void {
  parseListQuery(request.query);
  validateSearchFilters(request.filters, declaration.rules);
}

export async function runSearch<F extends { readonly filter: { readonly case: string | undefined } }, R, C extends SearchCall = CallContext>(
  call: C,
  declaration: SearchDeclaration<F, C>,
  request: SearchRequest<F>,
  access: SearchAccess<R> = {},
): Promise<{ readonly details: ListDetails; readonly rows: readonly R[] }> {
  const query = parseListQuery(request.query);
  validateSearchFilters(request.filters, declaration.rules);
  const conditions: Condition[] = [...(access.conditions ?? [])];
  for (const filter of request.filters) conditions.push(await declaration.condition(filter, call));
  const instanceId = access.instanceId ?? call.instance?.id;
  if (instanceId === undefined) throw new Error('search: no tenant to search');
  const { actors } = call.services;
  const result = await executeSearch<R>(actors.indexes, {
    instanceId,
    table: declaration.table,
    sort: declaration.sort[request.sortingColumn ?? 0] ?? declaration.sort[0]!,
    conditions,
    query,
    ...(access.visible === undefined ? {} : { visible: access.visible }),
    ...(access.scopeOnly === undefined ? {} : { scopeOnly: access.scopeOnly }),
    ...(access.scopeRows === undefined ? {} : { scopeRows: access.scopeRows }),
    ...(access.rowCheck === undefined ? {} : { rowCheck: access.rowCheck }),
  });
  const details = toListDetails(query, result.total, result.rows.length, await actors.projectionState(instanceId));
  return { details, rows: result.rows };
}
