/** SearchProjectGrants: POST /resources/v3alpha/project_grants/_search; filters are ANDed. */
import { type AggregateRecord, idTerm, type Project, type ProjectGrant, projectGrantIndexes, projectKind } from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  PlatformGrants,
  ProjectGrantFieldName,
  type ProjectGrantSearchFilter,
} from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxIds, requiredChars, specified } from '../../shared/search.js';
import { createProjectReadFilter } from '../projects/shared.js';
import { toGetProjectGrant } from './shared.js';

const states: Readonly<Record<number, string>> = { [State.EFFECTIVE_STATE_ACTIVE]: 'active', [State.EFFECTIVE_STATE_INACTIVE]: 'inactive' };

const SEARCH: SearchDeclaration<ProjectGrantSearchFilter> = {
  table: projectGrantIndexes,
  sort: {
    [ProjectGrantFieldName.UNSPECIFIED]: 'created',
    [ProjectGrantFieldName.CREATION_DATE]: 'created',
    [ProjectGrantFieldName.ID]: 'id',
    [ProjectGrantFieldName.CHANGE_DATE]: 'changed',
    [ProjectGrantFieldName.PROJECT_ID]: 'project',
    [ProjectGrantFieldName.GRANTED_ORG_ID]: 'granted_org',
  },
  rules: {
    projectId: [requiredChars('id')],
    grantedOrgId: [requiredChars('id')],
    roleKey: [requiredChars('key')],
    inIds: [maxIds()],
    state: [specified('state', 'state')],
  },
  condition({ filter: f }) {
    switch (f.case) {
      case 'projectId':
        return { index: 'project', equals: idTerm(f.value.id) };
      case 'grantedOrgId':
        return { index: 'granted_org', equals: idTerm(f.value.id) };
      case 'roleKey':
        return { index: 'role', equals: f.value.key };
      case 'state':
        return states[f.value.state] === undefined ? 'none' : { index: 'state', equals: states[f.value.state]! };
      case 'inIds':
        return { ids: f.value.ids };
      default:
        return 'none';
    }
  },
};

export const searchProjectGrantsRpc = defineRpc({
  method: PlatformGrants.method.searchProjectGrants,
  permission: 'authenticated', // results limited to grants with project.grant.read (in the project or its organization)
  async handle(request, call) {
    const mayRead = await createProjectReadFilter(call, 'project.grant.read');
    const projectOf = projectCache(call);
    const roleKeys = request.filters.flatMap((f) => (f.filter.case === 'roleKey' ? [f.filter.value.key] : []));
    const { details, rows } = await runSearch<ProjectGrantSearchFilter, AggregateRecord<ProjectGrant>>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: call.scope.orgId }] } : {}),
      // The project must exist, grant the read and still define the filtered role keys.
      rowCheck: async (row) => {
        const project = await projectOf(row.state.projectId);
        if (project === undefined || !roleKeys.every((key) => project.state.roles.some((r) => r.key === key))) return false;
        return mayRead(row.meta.owner.id, row.state.projectId);
      },
    });
    const result = [];
    for (const record of rows) result.push(toGetProjectGrant({ record, project: (await projectOf(record.state.projectId))! }));
    return { details, sortingColumn: request.sortingColumn, result };
  },
});

/** Reads each project once per request. */
function projectCache(call: CallContext): (id: string) => Promise<AggregateRecord<Project> | undefined> {
  const cache = new Map<string, AggregateRecord<Project> | undefined>();
  return async (id) => {
    if (!cache.has(id)) cache.set(id, await call.services.actors.readRecord(call.instance.id, projectKind, id));
    return cache.get(id);
  };
}
