/**
 * SearchOrganizations: POST /resources/v3alpha/organizations/_search. All organizations of
 * the instance the caller may read (instance-wide `org.read`, or a membership in the org);
 * an org ctx narrows the search to that org. Filters are ANDed.
 */
import { type AggregateRecord, type Org, orgKind } from '../../../../actors/index.js';
import {
  OrganizationFieldName,
  PlatformOrganizations,
  type OrganizationSearchFilter,
} from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, specified, validateSearchFilters } from '../../shared/search.js';
import { defaultOrgId, toGetOrganization } from './shared.js';

type Row = AggregateRecord<Org>;

const comparators: Record<OrganizationFieldName, (a: Row, b: Row) => number> = {
  [OrganizationFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [OrganizationFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [OrganizationFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [OrganizationFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [OrganizationFieldName.NAME]: (a, b) => compareStrings(a.state.name, b.state.name),
  [OrganizationFieldName.PRIMARY_DOMAIN]: (a, b) => compareStrings(a.state.primaryDomain, b.state.primaryDomain),
};

const FILTER_RULES: FilterRules<OrganizationSearchFilter> = {
  name: [maxChars('name')],
  primaryDomain: [maxChars('domain')],
  inIds: [maxIds()],
  state: [specified('state', 'state')],
};

export const searchOrganizationsRpc = defineRpc({
  method: PlatformOrganizations.method.searchOrganizations,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[OrganizationFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const rows: Row[] = [];
    const mayReadAll = await call.can('org.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    for await (const row of call.services.actors.scanRecords(call.instance.id, orgKind)) {
      if (onlyOrg !== undefined && row.id !== onlyOrg) continue;
      if (!request.filters.every((f) => matchesFilter(row, f))) continue;
      if (!mayReadAll && !(await call.can('org.read', row.id))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    const defaultId = await defaultOrgId(call);
    return {
      details: page.details,
      sortingColumn: request.sortingColumn,
      result: page.items.map((row) => toGetOrganization(row, defaultId)),
    };
  },
});

function matchesFilter(row: Row, filter: OrganizationSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'name':
      return matchesText(row.state.name, f.value.name, f.value.method);
    case 'primaryDomain':
      return matchesText(row.state.primaryDomain, f.value.domain, f.value.method);
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'state':
      return (row.state.state === 'active' ? State.EFFECTIVE_STATE_ACTIVE : State.EFFECTIVE_STATE_INACTIVE) === f.value.state;
    default:
      return true;
  }
}
