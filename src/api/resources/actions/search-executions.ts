/**
 * SearchExecutions: POST /resources/v3alpha/executions/_search. Executions with at least one
 * target or include (reference facts §3.3 recommendation), sorted by creation date (descending
 * unless `query.asc`); filters (inConditions, executionType, target, include) are ANDed. Runs
 * on the execution_entries sub-row indexes.
 */
import { executionIdOf, executionIndexes, type ExecutionEntry, type ExecutionSet, type FieldViolation, type SubRow } from '../../../../actors/index.js';
import { ExecutionType, PlatformActions, type ExecutionSearchFilter } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import type { Condition } from '../../shared/search-executor.js';
import { parseListQuery } from '../../shared/search.js';
import { parseCondition, parseExecutionId, throwIfAny } from './condition-input.js';
import { requireActionsFeature, toGetExecution } from './shared.js';

const executionTypes: Readonly<Record<number, string>> = {
  [ExecutionType.REQUEST]: 'request',
  [ExecutionType.RESPONSE]: 'response',
  [ExecutionType.EVENT]: 'event',
  [ExecutionType.FUNCTION]: 'function',
};

/** The filters become conditions in the handler (parseFilters: every bad filter in one 400). */
const SEARCH: SearchDeclaration<ExecutionSearchFilter> = {
  table: executionIndexes,
  sort: { 0: 'created' },
  rules: {},
  condition: () => 'all',
};

export const searchExecutionsRpc = defineRpc({
  method: PlatformActions.method.searchExecutions,
  permission: 'execution.read',
  async handle(request, call) {
    await requireActionsFeature(call);
    parseListQuery(request.query);
    const conditions = parseFilters(request.filters);
    const { details, rows } = await runSearch<ExecutionSearchFilter, SubRow<ExecutionSet, ExecutionEntry>>(call, SEARCH, { ...request, filters: [] }, { conditions });
    return { details, result: rows.map((row) => toGetExecution(call.instance.id, row.key, row.item)) };
  },
});

function parseFilters(filters: readonly ExecutionSearchFilter[]): Condition[] {
  const v: FieldViolation[] = [];
  const conditions = filters.map((filter, i): Condition => {
    const f = filter.filter;
    const at = `filters[${i}]`;
    switch (f.case) {
      case 'inConditions': {
        const ids = f.value.conditions.map((c, j) => parseCondition(c, `${at}.inConditions.conditions[${j}]`, v)).flatMap((c) => (c === undefined ? [] : [executionIdOf(c)]));
        return { index: 'execution_id', anyOf: ids };
      }
      case 'executionType': {
        const type = executionTypes[f.value.type];
        if (type === undefined) v.push({ field: `${at}.executionType.type`, description: 'must be a defined execution type' });
        return type === undefined ? 'none' : { index: 'type', equals: type };
      }
      case 'target':
        if (f.value.id === '' || f.value.id.length > 200) v.push({ field: `${at}.target.id`, description: 'must be 1..200 characters' });
        return { index: 'target', equals: f.value.id };
      case 'include': {
        const include = parseExecutionId(f.value.include, `${at}.include.include`, v);
        return { index: 'include', equals: include };
      }
      default:
        v.push({ field: at, description: 'exactly one filter must be set' });
        return 'all';
    }
  });
  throwIfAny(v);
  return conditions;
}
