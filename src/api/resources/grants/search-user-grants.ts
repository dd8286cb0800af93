/** SearchUserGrants: POST /resources/v3alpha/user_grants/_search; filters are ANDed. */
import { type AggregateKind, type AggregateRecord, projectGrantKind, projectKind, userGrantsKind, userKind } from '../../../../actors/index.js';

import { PlatformGrants, UserGrantFieldName, type UserGrantSearchFilter } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter, readOwned } from '../../shared/owned.js';
import { compareIds, compareNumbers, type FilterRules, maxIds, paginate, parseListQuery, requiredChars, specified, validateSearchFilters } from '../../shared/search.js';
import { displayedKeys, toGetUserGrant, toGrantState, type UserGrantView } from './shared.js';

type Row = UserGrantView & { readonly id: string };

const byCreation = (a: Row, b: Row) => compareNumbers(a.grant.createdAt, b.grant.createdAt);

const comparators: Record<UserGrantFieldName, (a: Row, b: Row) => number> = {
  [UserGrantFieldName.UNSPECIFIED]: byCreation,
  [UserGrantFieldName.CREATION_DATE]: byCreation,
  [UserGrantFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [UserGrantFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.grant.changedAt, b.grant.changedAt),
  [UserGrantFieldName.USER_ID]: (a, b) => compareIds(a.row.state.userId, b.row.state.userId),
  [UserGrantFieldName.PROJECT_ID]: (a, b) => compareIds(a.grant.projectId, b.grant.projectId),
};

const FILTER_RULES: FilterRules<UserGrantSearchFilter> = {
  userId: [requiredChars('id')],
  projectId: [requiredChars('id')],
  orgId: [requiredChars('id')],
  projectGrantId: [requiredChars('id')],
  roleKey: [requiredChars('key')],
  inIds: [maxIds()],
  state: [specified('state', 'state')],
};

export const searchUserGrantsRpc = defineRpc({
  method: PlatformGrants.method.searchUserGrants,
  permission: 'authenticated', // results limited to organizations with user.grant.read
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createOrgReadFilter(call, 'user.grant.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const projectOf = cached(call, projectKind, true);
    const projectGrantOf = cached(call, projectGrantKind, false);
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, userGrantsKind)) {
      const orgId = row.state.orgId;
      if (row.state.grants.length === 0 || (onlyOrg !== undefined && orgId !== onlyOrg) || !(await mayRead(orgId))) continue;
      const user = await call.services.actors.readRecord(call.instance.id, userKind, row.id);
      if (user === undefined || user.state.orgId !== orgId) continue;
      for (const grant of row.state.grants) {
        const project = await projectOf(grant.projectId);
        if (project === undefined) continue;
        const projectGrant = grant.projectGrantId === '' ? undefined : await projectGrantOf(grant.projectGrantId);
        const roleKeys = displayedKeys(grant, project, projectGrant);
        const view: Row = { id: grant.id, row, grant, orgId, project, roleKeys };
        if (request.filters.every((f) => matchesFilter(view, f))) rows.push(view);
      }
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetUserGrant) };
  },
});

/** Reads each row once per request (`owned`: rows of removed organizations count as absent). */
function cached<S>(call: CallContext, kind: AggregateKind<S>, owned: boolean): (id: string) => Promise<AggregateRecord<S> | undefined> {
  const cache = new Map<string, AggregateRecord<S> | undefined>();
  return async (id) => {
    if (!cache.has(id)) cache.set(id, owned ? await readOwned(call, kind, id) : await call.services.actors.readRecord(call.instance.id, kind, id));
    return cache.get(id);
  };
}

function matchesFilter(row: Row, filter: UserGrantSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'userId':
      return row.row.state.userId === f.value.id;
    case 'projectId':
      return row.grant.projectId === f.value.id;
    case 'roleKey':
      return row.roleKeys.includes(f.value.key);
    case 'orgId':
      return row.orgId === f.value.id;
    case 'state':
      return toGrantState(row.grant.state) === f.value.state;
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'projectGrantId':
      return row.grant.projectGrantId === f.value.id;
    default:
      return true;
  }
}
