/**
 * SearchTargets: POST /resources/v3alpha/targets/_search. Every target of the instance by
 * default; filters (name with any TextFilterMethod, inIds) are ANDed; all ten sort columns.
 */
import { type AggregateRecord, type Target, targetKind } from '../../../../actors/index.js';
import { PlatformActions, TargetFieldName, type TargetSearchFilter } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, knownEnum, matchesText, maxChars, maxIds, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { requireActionsFeature, toGetTarget } from './shared.js';

type Row = AggregateRecord<Target>;

const comparators: Record<TargetFieldName, (a: Row, b: Row) => number> = {
  [TargetFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [TargetFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [TargetFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [TargetFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [TargetFieldName.NAME]: (a, b) => compareStrings(a.state.name, b.state.name),
  [TargetFieldName.TARGET_TYPE]: (a, b) => compareStrings(a.state.targetType, b.state.targetType),
  [TargetFieldName.URL]: (a, b) => compareStrings(a.state.url, b.state.url),
  [TargetFieldName.TIMEOUT]: (a, b) => compareNumbers(a.state.timeoutNanos, b.state.timeoutNanos),
  [TargetFieldName.ASYNC]: (a, b) => compareNumbers(flag(a.state.executionType === 'async'), flag(b.state.executionType === 'async')),
  [TargetFieldName.INTERRUPT_ON_ERROR]: (a, b) =>
    compareNumbers(flag(a.state.executionType === 'interrupt'), flag(b.state.executionType === 'interrupt')),
};

const FILTER_RULES: FilterRules<TargetSearchFilter> = { name: [maxChars('name'), knownEnum('method', TextFilterMethod)], inIds: [maxIds()] };

export const searchTargetsRpc = defineRpc({
  method: PlatformActions.method.searchTargets,
  permission: 'action.target.read',
  async handle(request, call) {
    await requireActionsFeature(call);
    const query = parseListQuery(request.query);
    validateSearchFilters(request.filters, FILTER_RULES);
    const compare = comparators[request.sortingColumn] ?? comparators[TargetFieldName.UNSPECIFIED];
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, targetKind)) {
      if (request.filters.every((f) => matchesFilter(row, f))) rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetTarget) };
  },
});

function flag(value: boolean): number {
  return value ? 1 : 0;
}

function matchesFilter(row: Row, filter: TargetSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'name':
      return matchesText(row.state.name, f.value.name, f.value.method);
    case 'inIds':
      return f.value.ids.includes(row.id);
    default:
      return true;
  }
}
