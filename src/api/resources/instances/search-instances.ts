/**
 * SearchInstances: POST /resources/v3alpha/instances/_search. Every instance of the system;
 * filters (name, ids, domain) are ANDed; the domain filter matches when any domain matches.
 */
import { instanceKind, SYSTEM_TENANT } from '../../../../actors/index.js';
import {
  InstanceFieldName,
  PlatformInstances,
  type InstanceSearchFilter,
} from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { toGetInstance, type InstanceRow } from './shared.js';

const comparators: Record<InstanceFieldName, (a: InstanceRow, b: InstanceRow) => number> = {
  [InstanceFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [InstanceFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [InstanceFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [InstanceFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [InstanceFieldName.NAME]: (a, b) => compareStrings(a.state.name, b.state.name),
};

const FILTER_RULES: FilterRules<InstanceSearchFilter> = { name: [maxChars('name')], domain: [maxChars('domain', 253)], inIds: [maxIds()] };

export const searchInstancesRpc = defineSystemRpc({
  method: PlatformInstances.method.searchInstances,
  permission: 'system.instance.read',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[InstanceFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const rows: InstanceRow[] = [];
    for await (const row of call.services.actors.scanRecords(SYSTEM_TENANT, instanceKind)) {
      if (request.filters.every((f) => matchesFilter(row, f))) rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(SYSTEM_TENANT));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetInstance) };
  },
});

function matchesFilter(row: InstanceRow, filter: InstanceSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'name':
      return matchesText(row.state.name, f.value.name, f.value.method);
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'domain':
      return row.state.domains.some((domain) => matchesText(domain, f.value.domain, f.value.method));
    default:
      return true;
  }
}
