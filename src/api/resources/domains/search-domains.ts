/**
 * SearchDomains: POST /resources/v3alpha/domains/_search. The domains of every organization the
 * caller may read (`org.read` instance-wide or in the org); an org ctx narrows to that org.
 * Filters are ANDed.
 */
import { orgDomains, orgKind } from '../../../../actors/index.js';
import {
  DomainFieldName,
  PlatformDomains,
  type DomainSearchFilter,
} from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { domainDetails, toGetDomain, type FoundDomain } from './shared.js';

type Row = FoundDomain & { readonly id: string };

const createdAt = (r: Row) => (r.entry.createdAt > 0 ? r.entry.createdAt : r.org.meta.createdAt);
const comparators: Record<DomainFieldName, (a: Row, b: Row) => number> = {
  [DomainFieldName.UNSPECIFIED]: (a, b) => compareNumbers(createdAt(a), createdAt(b)),
  [DomainFieldName.CREATION_DATE]: (a, b) => compareNumbers(createdAt(a), createdAt(b)),
  [DomainFieldName.DOMAIN]: (a, b) => compareStrings(a.id, b.id),
  [DomainFieldName.CHANGE_DATE]: (a, b) => compareNumbers(domainDetails(a).changeDate, domainDetails(b).changeDate),
  [DomainFieldName.ORG_ID]: (a, b) => compareIds(a.orgId, b.orgId),
};

const FILTER_RULES: FilterRules<DomainSearchFilter> = { domain: [maxChars('domain', 253)], orgId: [maxChars('id')] };

export const searchDomainsRpc = defineRpc({
  method: PlatformDomains.method.searchDomains,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[DomainFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createOrgReadFilter(call, 'org.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const rows: Row[] = [];
    for await (const org of call.services.actors.scanRecords(call.instance.id, orgKind)) {
      if (onlyOrg !== undefined && org.id !== onlyOrg) continue;
      const candidates = orgDomains(org.state)
        .map((entry): Row => ({ id: entry.domain, orgId: org.id, org, entry }))
        .filter((row) => request.filters.every((f) => matchesFilter(row, f)));
      if (candidates.length === 0 || !(await mayRead(org.id))) continue;
      rows.push(...candidates);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetDomain) };
  },
});

function matchesFilter(row: Row, filter: DomainSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'domain':
      return matchesText(row.id, f.value.domain, f.value.method);
    case 'orgId':
      return row.orgId === f.value.id;
    case 'verified':
      return row.entry.isVerified === f.value.isVerified;
    case 'primary':
      return (row.org.state.primaryDomain === row.id) === f.value.isPrimary;
    default:
      return true;
  }
}
