/**
 * SearchUserGrants: POST /resources/v3alpha/user_grants/_search; filters are ANDed. Runs on the
 * user_grant_entries sub-row indexes; the rules on other aggregates (the user still in the
 * grant's organization, the project live, the role keys the project still has) are checked on
 * the narrowed candidates.
 */
import {
  type AggregateKind,
  type AggregateRecord,
  idTerm,
  projectGrantKind,
  projectKind,
  type SubRow,
  type UserGrant,
  userGrantIndexes,
  type UserGrants,
  userKind,
} from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { PlatformGrants, UserGrantFieldName, type UserGrantSearchFilter } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { createOrgReadFilter, readOwned } from '../../shared/owned.js';
import { maxIds, requiredChars, specified } from '../../shared/search.js';
import { displayedKeys, toGetUserGrant, type UserGrantView } from './shared.js';

type Row = SubRow<UserGrants, UserGrant>;

const states: Readonly<Record<number, string>> = { [State.EFFECTIVE_STATE_ACTIVE]: 'active', [State.EFFECTIVE_STATE_INACTIVE]: 'inactive' };

const SEARCH: SearchDeclaration<UserGrantSearchFilter> = {
  table: userGrantIndexes,
  sort: {
    [UserGrantFieldName.UNSPECIFIED]: 'created',
    [UserGrantFieldName.CREATION_DATE]: 'created',
    [UserGrantFieldName.ID]: 'id',
    [UserGrantFieldName.CHANGE_DATE]: 'changed',
    [UserGrantFieldName.USER_ID]: 'user',
    [UserGrantFieldName.PROJECT_ID]: 'project',
  },
  rules: {
    userId: [requiredChars('id')],
    projectId: [requiredChars('id')],
    orgId: [requiredChars('id')],
    projectGrantId: [requiredChars('id')],
    roleKey: [requiredChars('key')],
    inIds: [maxIds()],
    state: [specified('state', 'state')],
  },
  condition({ filter: f }) {
    switch (f.case) {
      case 'userId':
        return { index: 'user', equals: idTerm(f.value.id) };
      case 'projectId':
        return { index: 'project', equals: idTerm(f.value.id) };
      case 'orgId':
        return { index: 'org', equals: idTerm(f.value.id) };
      case 'projectGrantId':
        return { index: 'project_grant', equals: f.value.id };
      // Narrowed by the keys as granted; rowCheck keeps those the project still has.
      case 'roleKey':
        return { index: 'role', equals: f.value.key };
      case 'inIds':
        return { index: 'id', anyOf: f.value.ids.map(idTerm) };
      case 'state':
        return states[f.value.state] === undefined ? 'none' : { index: 'state', equals: states[f.value.state]! };
      default:
        return 'all';
    }
  },
};

export const searchUserGrantsRpc = defineRpc({
  method: PlatformGrants.method.searchUserGrants,
  permission: 'authenticated', // results limited to organizations with user.grant.read
  async handle(request, call) {
    const mayRead = await createOrgReadFilter(call, 'user.grant.read');
    const viewOf = views(call);
    const roleKeys = request.filters.flatMap((f) => (f.filter.case === 'roleKey' ? [f.filter.value.key] : []));
    const { details, rows } = await runSearch<UserGrantSearchFilter, Row>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: idTerm(call.scope.orgId) }] } : {}),
      visible: (_id, orgId) => mayRead(orgId),
      scopeOnly: true,
      async rowCheck(row) {
        const view = await viewOf(row);
        return view !== undefined && roleKeys.every((key) => view.roleKeys.includes(key));
      },
    });
    const result = [];
    for (const row of rows) {
      const view = await viewOf(row);
      if (view !== undefined) result.push(toGetUserGrant(view));
    }
    return { details, sortingColumn: request.sortingColumn, result };
  },
});

/**
 * A grant as listed: absent when its user left the grant's organization or its project is gone
 * (rows of removed organizations count as absent); the role keys the project (and the project
 * grant) still have. Users, projects and project grants are read once per request.
 */
function views(call: CallContext): (row: Row) => Promise<UserGrantView | undefined> {
  const userOf = cached(call, userKind, false);
  const projectOf = cached(call, projectKind, true);
  const projectGrantOf = cached(call, projectGrantKind, false);
  return async ({ parent, item: grant }) => {
    const orgId = parent.state.orgId;
    const user = await userOf(parent.id);
    if (user === undefined || user.state.orgId !== orgId) return undefined;
    const project = await projectOf(grant.projectId);
    if (project === undefined) return undefined;
    const projectGrant = grant.projectGrantId === '' ? undefined : await projectGrantOf(grant.projectGrantId);
    return { row: parent, grant, orgId, project, roleKeys: displayedKeys(grant, project, projectGrant) };
  };
}

/** Reads each row once per request (`owned`: rows of removed organizations count as absent). */
function cached<S>(call: CallContext, kind: AggregateKind<S>, owned: boolean): (id: string) => Promise<AggregateRecord<S> | undefined> {
  const cache = new Map<string, Promise<AggregateRecord<S> | undefined>>();
  return (id) => {
    let hit = cache.get(id);
    if (hit === undefined) cache.set(id, (hit = owned ? readOwned(call, kind, id) : call.services.actors.readRecord(call.instance.id, kind, id)));
    return hit;
  };
}
