/**
 * SearchExecutions: POST /resources/v3alpha/executions/_search. Executions with at least one
 * target or include (reference facts §3.3 recommendation), sorted by creation date (descending
 * unless `query.asc`); filters (inConditions, executionType, target, include) are ANDed.
 */
import {
  executionIdOf,
  executionSetKind,
  isEffective,
  type ExecutionEntry,
  type FieldViolation,
} from '../../../../actors/index.js';
import { ExecutionType, PlatformActions, type ExecutionSearchFilter } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareNumbers, paginate, parseListQuery } from '../../shared/search.js';
import { parseCondition, parseExecutionId, throwIfAny } from './condition-input.js';
import { requireActionsFeature, toGetExecution } from './shared.js';

interface Row {
  readonly id: string;
  readonly entry: ExecutionEntry;
}

type Matcher = (row: Row) => boolean;

const executionTypes: Readonly<Record<number, string>> = {
  [ExecutionType.REQUEST]: 'request',
  [ExecutionType.RESPONSE]: 'response',
  [ExecutionType.EVENT]: 'event',
  [ExecutionType.FUNCTION]: 'function',
};

export const searchExecutionsRpc = defineRpc({
  method: PlatformActions.method.searchExecutions,
  permission: 'execution.read',
  async handle(request, call) {
    await requireActionsFeature(call);
    const query = parseListQuery(request.query);
    const matchers = parseFilters(request.filters);
    const set = await call.services.actors.readRecord(call.instance.id, executionSetKind, call.instance.id);
    const rows = Object.entries(set?.state.entries ?? {})
      .map(([id, entry]) => ({ id, entry }))
      .filter((row) => isEffective(row.entry) && matchers.every((m) => m(row)));
    const page = paginate(rows, (a, b) => compareNumbers(a.entry.createdAt, b.entry.createdAt), query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, result: page.items.map((row) => toGetExecution(call.instance.id, row.id, row.entry)) };
  },
});

function parseFilters(filters: readonly ExecutionSearchFilter[]): Matcher[] {
  const v: FieldViolation[] = [];
  const matchers = filters.map((filter, i): Matcher => {
    const f = filter.filter;
    const at = `filters[${i}]`;
    switch (f.case) {
      case 'inConditions': {
        const ids = f.value.conditions.map((c, j) => parseCondition(c, `${at}.inConditions.conditions[${j}]`, v)).flatMap((c) => (c === undefined ? [] : [executionIdOf(c)]));
        return (row) => ids.includes(row.id);
      }
      case 'executionType': {
        const type = executionTypes[f.value.type];
        if (type === undefined) v.push({ field: `${at}.executionType.type`, description: 'must be a defined execution type' });
        return (row) => row.entry.condition.type === type;
      }
      case 'target':
        if (f.value.id === '' || f.value.id.length > 200) v.push({ field: `${at}.target.id`, description: 'must be 1..200 characters' });
        return (row) => row.entry.targets.includes(f.value.id);
      case 'include': {
        const include = parseExecutionId(f.value.include, `${at}.include.include`, v);
        return (row) => row.entry.includes.includes(include);
      }
      default:
        v.push({ field: at, description: 'exactly one filter must be set' });
        return () => true;
    }
  });
  throwIfAny(v);
  return matchers;
}
