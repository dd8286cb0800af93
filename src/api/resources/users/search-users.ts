/**
 * SearchUsers: POST /resources/v3alpha/users/_search. Users of every organization in which
 * the caller holds `user.read` (instance-wide holders: all); an org ctx narrows the search to
 * that organization. Filters are ANDed.
 */
import { type AggregateRecord, displayNameOf, type Org, type User, userKind } from '../../../../actors/index.js';
import { PlatformUsers, UserFieldName, type UserSearchFilter } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, specified, validateSearchFilters } from '../../shared/search.js';
import { loginNamesOf } from '../../shared/user-auth.js';
import { readOrgOf, toGetUser, toWireState, toWireType } from './shared.js';

type Row = AggregateRecord<User>;

const emailOf = (row: Row): string => (row.state.type === 'human' ? row.state.email.address : '');

const comparators: Record<UserFieldName, (a: Row, b: Row) => number> = {
  [UserFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [UserFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [UserFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [UserFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [UserFieldName.USERNAME]: (a, b) => compareStrings(a.state.username.toLowerCase(), b.state.username.toLowerCase()),
  [UserFieldName.DISPLAY_NAME]: (a, b) => compareStrings(displayNameOf(a.state), displayNameOf(b.state)),
  [UserFieldName.EMAIL]: (a, b) => compareStrings(emailOf(a), emailOf(b)),
  [UserFieldName.STATE]: (a, b) => compareNumbers(toWireState(a.state.state), toWireState(b.state.state)),
  [UserFieldName.TYPE]: (a, b) => compareNumbers(toWireType(a.state.type), toWireType(b.state.type)),
};

const FILTER_RULES: FilterRules<UserSearchFilter> = {
  username: [maxChars('username')],
  email: [maxChars('address')],
  displayName: [maxChars('displayName')],
  loginName: [maxChars('loginName')],
  orgId: [maxChars('orgId')],
  inIds: [maxIds()],
  type: [specified('type', 'type')],
  state: [specified('state', 'state')],
};

export const searchUsersRpc = defineRpc({
  method: PlatformUsers.method.searchUsers,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[UserFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createOrgReadFilter(call, 'user.read');
    const orgs = createOrgCache(call);
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, userKind)) {
      if (onlyOrg !== undefined && row.state.orgId !== onlyOrg) continue;
      if (!(await mayRead(row.state.orgId))) continue;
      const org = await orgs(row.state.orgId);
      if (!request.filters.every((f) => matchesFilter(row, org, f))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    const result = [];
    for (const row of page.items) result.push(toGetUser(row, await orgs(row.state.orgId)));
    return { details: page.details, sortingColumn: request.sortingColumn, result };
  },
});

function createOrgCache(call: CallContext): (orgId: string) => Promise<Org | undefined> {
  const cache = new Map<string, Promise<Org | undefined>>();
  return (orgId) => {
    let org = cache.get(orgId);
    if (org === undefined) cache.set(orgId, (org = readOrgOf(call, orgId)));
    return org;
  };
}

function matchesFilter(row: Row, org: Org | undefined, filter: UserSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'username':
      return matchesText(row.state.username, f.value.username, f.value.method);
    case 'email':
      return row.state.type === 'human' && matchesText(row.state.email.address, f.value.address, f.value.method);
    case 'displayName':
      return matchesText(displayNameOf(row.state), f.value.displayName, f.value.method);
    case 'loginName':
      return loginNamesOf(row.state.username, org).loginNames.some((name) => matchesText(name, f.value.loginName, f.value.method));
    case 'type':
      return toWireType(row.state.type) === f.value.type;
    case 'state':
      return toWireState(row.state.state) === f.value.state;
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'orgId':
      return row.state.orgId === f.value.orgId;
    default:
      return true;
  }
}
