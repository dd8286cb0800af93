/**
 * SearchUsers: POST /resources/v3alpha/users/_search. Users of every organization in which
 * the caller holds `user.read` (instance-wide holders: all); an org ctx narrows the search to
 * that organization. Filters are ANDed.
 */
import { type AggregateRecord, type Org, orgKind, type User, userIndexes } from '../../../../actors/index.js';
import { TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { PlatformUsers, UserFieldName, type UserSearchFilter, UserState, UserType } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import type { Condition } from '../../shared/search-executor.js';
import { matchesText, maxChars, maxIds, specified, textCondition } from '../../shared/search.js';
import { loginNamesOf } from '../../../query/user-auth.js';
import { readOrgOf, toGetUser } from './shared.js';

const states: Readonly<Record<number, string>> = { [UserState.ACTIVE]: 'active', [UserState.INACTIVE]: 'inactive', [UserState.LOCKED]: 'locked' };
const types: Readonly<Record<number, string>> = { [UserType.HUMAN]: 'human', [UserType.MACHINE]: 'machine' };

const SEARCH: SearchDeclaration<UserSearchFilter> = {
  table: userIndexes,
  sort: {
    [UserFieldName.UNSPECIFIED]: 'created',
    [UserFieldName.CREATION_DATE]: 'created',
    [UserFieldName.ID]: 'id',
    [UserFieldName.CHANGE_DATE]: 'changed',
    [UserFieldName.USERNAME]: 'username_ci',
    [UserFieldName.DISPLAY_NAME]: 'display_name',
    [UserFieldName.EMAIL]: 'email_sort',
    [UserFieldName.STATE]: 'state',
    [UserFieldName.TYPE]: 'type',
  },
  rules: {
    username: [maxChars('username')],
    email: [maxChars('address')],
    displayName: [maxChars('displayName')],
    loginName: [maxChars('loginName')],
    orgId: [maxChars('orgId')],
    inIds: [maxIds()],
    type: [specified('type', 'type')],
    state: [specified('state', 'state')],
  },
  condition({ filter: f }, call) {
    switch (f.case) {
      case 'username':
        return textCondition('username', f.value.method, f.value.username);
      case 'email':
        return emailCondition(f.value.method, f.value.address);
      case 'displayName':
        return textCondition('display_name', f.value.method, f.value.displayName);
      case 'loginName':
        return loginNameCondition(call, f.value.loginName, f.value.method);
      case 'type':
        return types[f.value.type] === undefined ? 'none' : { index: 'type', equals: types[f.value.type]! };
      case 'state':
        return states[f.value.state] === undefined ? 'none' : { index: 'state', equals: states[f.value.state]! };
      case 'inIds':
        return { ids: f.value.ids };
      case 'orgId':
        return { index: 'org', equals: f.value.orgId };
      default:
        return 'none';
    }
  },
};

/**
 * The case-sensitive email filters walk `email_sort` (every user; machine users under ''): a
 * value other than '' cannot match a machine user's ''. For '' they walk `email_ci` (humans
 * only), where a term matches '' exactly when the address does.
 */
function emailCondition(method: TextFilterMethod, wanted: string): Condition {
  const condition = textCondition('email', method, wanted);
  if (typeof condition === 'string' || !('index' in condition) || condition.index !== 'email') return condition;
  return { ...condition, index: wanted === '' ? 'email_ci' : 'email_sort' };
}

/**
 * Login names are `username@<domain>` for the org's primary and verified domains: the
 * username index narrows the candidates (a login name starts with its username, so the part
 * before the first '@' is a username prefix), and each candidate's names are checked with its
 * organization (read once per organization).
 */
function loginNameCondition(call: CallContext, wanted: string, method: TextFilterMethod): Condition {
  const orgs = new Map<string, Promise<Org | undefined>>();
  const orgOf = (orgId: string) => {
    let org = orgs.get(orgId);
    if (org === undefined) orgs.set(orgId, (org = readOrgOf(call, orgId)));
    return org;
  };
  const ignoreCase = method === TextFilterMethod.EQUALS_IGNORE_CASE || method === TextFilterMethod.STARTS_WITH_IGNORE_CASE;
  const exact = method === TextFilterMethod.EQUALS || method === TextFilterMethod.EQUALS_IGNORE_CASE;
  const prefix = method === TextFilterMethod.STARTS_WITH || method === TextFilterMethod.STARTS_WITH_IGNORE_CASE;
  const index = ignoreCase ? 'username_ci' : 'username';
  const text = ignoreCase ? wanted.toLowerCase() : wanted;
  const test = async (username: string, orgId: string) => loginNamesOf(username, await orgOf(orgId)).loginNames.some((name) => matchesText(name, wanted, method));
  const at = text.lastIndexOf('@');
  if (exact && at > 0) return { index, equals: text.slice(0, at), test };
  if (exact || prefix) return { index, prefix: text.split('@')[0]!, test };
  return { index, test };
}

export const searchUsersRpc = defineRpc({
  method: PlatformUsers.method.searchUsers,
  permission: 'authenticated',
  async handle(request, call) {
    const mayRead = await createOrgReadFilter(call, 'user.read');
    const { details, rows } = await runSearch<UserSearchFilter, AggregateRecord<User>>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: call.scope.orgId }] } : {}),
      visible: (_id, orgId) => mayRead(orgId),
      scopeOnly: true,
      // Allowed everywhere: the users of the organizations that exist (one statement per page on PostgreSQL).
      ...(mayRead.everywhere ? { scopeRows: orgKind.table } : {}),
    });
    const orgs = new Map<string, Org | undefined>();
    const result = [];
    for (const row of rows) {
      if (!orgs.has(row.state.orgId)) orgs.set(row.state.orgId, await readOrgOf(call, row.state.orgId));
      result.push(toGetUser(row, orgs.get(row.state.orgId)));
    }
    return { details, sortingColumn: request.sortingColumn, result };
  },
});
