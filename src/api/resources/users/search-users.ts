/**
 * SearchUsers: POST /resources/v3alpha/users/_search. Users of every organization in which
 * the caller holds `user.read` (instance-wide holders: all); an org ctx narrows the search to
 * that organization. Filters are ANDed.
 */
import {
  type AggregateRecord,
  displayNameOf,
  type FieldViolation,
  type Org,
  type User,
  userKind,
  validationFailed,
} from '../../../../actors/index.js';
import {
  PlatformUsers,
  UserFieldName,
  UserState,
  UserType,
  type UserSearchFilter,
} from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { compareIds, compareNumbers, compareStrings, matchesText, paginate, parseListQuery } from '../../shared/search.js';
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

export const searchUsersRpc = defineRpc({
  method: PlatformUsers.method.searchUsers,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[UserFieldName.UNSPECIFIED];
    validateFilters(request.filters);
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

function validateFilters(filters: readonly UserSearchFilter[]): void {
  const violations: FieldViolation[] = [];
  const tooLong = (i: number, name: string, path: string, value: string) => {
    if (value.length > 200) violations.push({ field: `filters[${i}].${name}.${path}`, description: 'must be at most 200 characters' });
  };
  filters.forEach((filter, i) => {
    const f = filter.filter;
    if (f.case === undefined) violations.push({ field: `filters[${i}]`, description: 'exactly one filter must be set' });
    if (f.case === 'username') tooLong(i, 'username', 'username', f.value.username);
    if (f.case === 'email') tooLong(i, 'email', 'address', f.value.address);
    if (f.case === 'displayName') tooLong(i, 'displayName', 'displayName', f.value.displayName);
    if (f.case === 'loginName') tooLong(i, 'loginName', 'loginName', f.value.loginName);
    if (f.case === 'orgId') tooLong(i, 'orgId', 'orgId', f.value.orgId);
    if (f.case === 'inIds' && f.value.ids.length > 1000) violations.push({ field: `filters[${i}].inIds.ids`, description: 'at most 1000 ids' });
    if (f.case === 'type' && f.value.type === UserType.UNSPECIFIED) violations.push({ field: `filters[${i}].type.type`, description: 'must be a defined type' });
    if (f.case === 'state' && f.value.state === UserState.UNSPECIFIED) violations.push({ field: `filters[${i}].state.state`, description: 'must be a defined state' });
  });
  if (violations.length > 0) throw validationFailed(violations);
}
