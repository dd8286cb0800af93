/**
 * SearchMemberships: POST /resources/v3alpha/memberships/_search. Memberships the caller may
 * read (the context's `*.member.read`), without tombstoned ones (user or organization gone);
 * an org ctx narrows to memberships of that organization and its projects. Filters are ANDed.
 */
import { type AggregateRecord, type Membership, membershipKind } from '../../../../actors/index.js';
import {
  MembershipFieldName,
  PlatformMemberships,
  type MembershipSearchFilter,
} from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { isMembershipLive } from '../../auth.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, maxChars, maxIds, paginate, parseListQuery, specified, validateSearchFilters } from '../../shared/search.js';
import { canManage, contextTypes, placeOf, toGetMembership } from './shared.js';

type Row = AggregateRecord<Membership>;

const comparators: Record<MembershipFieldName, (a: Row, b: Row) => number> = {
  [MembershipFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [MembershipFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [MembershipFieldName.ID]: (a, b) => compareStrings(a.id, b.id),
  [MembershipFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [MembershipFieldName.USER_ID]: (a, b) => compareIds(a.state.userId, b.state.userId),
  [MembershipFieldName.CONTEXT_TYPE]: (a, b) => compareStrings(a.state.contextType, b.state.contextType),
  [MembershipFieldName.CONTEXT_ID]: (a, b) => compareIds(a.state.contextId, b.state.contextId),
};

const FILTER_RULES: FilterRules<MembershipSearchFilter> = {
  userId: [maxChars('id')],
  contextId: [maxChars('id')],
  role: [maxChars('role')],
  inIds: [maxIds()],
  contextType: [specified('contextType', 'context type')],
};

export const searchMembershipsRpc = defineRpc({
  method: PlatformMemberships.method.searchMemberships,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[MembershipFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = createReadFilter(call);
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, membershipKind)) {
      if (row.state.contextType === 'system') continue;
      if (onlyOrg !== undefined && placeOf(row).orgId !== onlyOrg) continue;
      if (!request.filters.every((f) => matchesFilter(row, f))) continue;
      if (!(await mayRead(row)) || !(await isMembershipLive(call.services.actors, call.instance.id, row))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetMembership) };
  },
});

/** Per-request permission cache by context. */
function createReadFilter(call: CallContext): (row: Row) => Promise<boolean> {
  const cache = new Map<string, boolean>();
  return async (row) => {
    const key = `${row.state.contextType}:${row.state.contextId}`;
    let allowed = cache.get(key);
    if (allowed === undefined) {
      allowed = await canManage(call, placeOf(row), 'read');
      cache.set(key, allowed);
    }
    return allowed;
  };
}

function matchesFilter(row: Row, filter: MembershipSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'userId':
      return row.state.userId === f.value.id;
    case 'contextType':
      return contextTypes[row.state.contextType] === f.value.contextType;
    case 'contextId':
      return row.state.contextId === f.value.id;
    case 'role':
      return row.state.roles.includes(f.value.role);
    case 'inIds':
      return f.value.ids.includes(row.id);
    default:
      return true;
  }
}
