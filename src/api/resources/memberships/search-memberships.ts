/**
 * SearchMemberships: POST /resources/v3alpha/memberships/_search. Memberships the caller may
 * read (the context's `*.member.read`), without tombstoned ones (user or organization gone);
 * an org ctx narrows to memberships of that organization and its projects. Filters are ANDed.
 */
import { type AggregateRecord, idTerm, type Membership, type MembershipContext, membershipIndexes } from '../../../../actors/index.js';
import {
  MembershipFieldName,
  PlatformMemberships,
  type MembershipSearchFilter,
} from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { isMembershipLive } from '../../../query/auth.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, specified } from '../../shared/search.js';
import { canManage, contextTypes, placeOf, toGetMembership } from './shared.js';

type Row = AggregateRecord<Membership>;

const contextNames = new Map<number, MembershipContext>(Object.entries(contextTypes).map(([name, wire]) => [wire, name as MembershipContext]));

const SEARCH: SearchDeclaration<MembershipSearchFilter> = {
  table: membershipIndexes,
  sort: {
    [MembershipFieldName.UNSPECIFIED]: 'created',
    [MembershipFieldName.CREATION_DATE]: 'created',
    [MembershipFieldName.ID]: 'id',
    [MembershipFieldName.CHANGE_DATE]: 'changed',
    [MembershipFieldName.USER_ID]: 'user',
    [MembershipFieldName.CONTEXT_TYPE]: 'context_type',
    [MembershipFieldName.CONTEXT_ID]: 'context',
  },
  rules: { userId: [maxChars('id')], contextId: [maxChars('id')], role: [maxChars('role')], inIds: [maxIds()], contextType: [specified('contextType', 'context type')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'userId':
        return { index: 'user', equals: idTerm(f.value.id) };
      case 'contextType': {
        const name = contextNames.get(f.value.contextType);
        return name === undefined ? 'none' : { index: 'context_type', equals: name };
      }
      case 'contextId':
        return { index: 'context', equals: idTerm(f.value.id) };
      case 'role':
        return { index: 'role', equals: f.value.role };
      case 'inIds':
        return { ids: f.value.ids };
      default:
        return 'none';
    }
  },
};

export const searchMembershipsRpc = defineRpc({
  method: PlatformMemberships.method.searchMemberships,
  permission: 'authenticated',
  async handle(request, call) {
    const mayRead = createReadFilter(call);
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const { details, rows } = await runSearch<MembershipSearchFilter, Row>(call, SEARCH, request, {
      // System memberships are never listed here; the rest need their user and organization alive.
      rowCheck: async (row) =>
        row.state.contextType !== 'system' &&
        (onlyOrg === undefined || placeOf(row).orgId === onlyOrg) &&
        (await mayRead(row)) &&
        (await isMembershipLive(call.services.actors, call.instance.id, row)),
    });
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetMembership) };
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
