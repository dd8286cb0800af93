/** SearchProjectGrants: POST /resources/v3alpha/project_grants/_search; filters are ANDed. */
import { type AggregateRecord, type Project, projectGrantKind, projectKind } from '../../../../actors/index.js';

import {
  PlatformGrants,
  ProjectGrantFieldName,
  type ProjectGrantSearchFilter,
} from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, type FilterRules, maxIds, paginate, parseListQuery, requiredChars, specified, validateSearchFilters } from '../../shared/search.js';
import { createProjectReadFilter } from '../projects/shared.js';
import { type ProjectGrantView, toGetProjectGrant, toGrantState } from './shared.js';

type Row = ProjectGrantView & { readonly id: string };

const byCreation = (a: Row, b: Row) => compareNumbers(a.record.meta.createdAt, b.record.meta.createdAt);

const comparators: Record<ProjectGrantFieldName, (a: Row, b: Row) => number> = {
  [ProjectGrantFieldName.UNSPECIFIED]: byCreation,
  [ProjectGrantFieldName.CREATION_DATE]: byCreation,
  [ProjectGrantFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [ProjectGrantFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.record.meta.changedAt, b.record.meta.changedAt),
  [ProjectGrantFieldName.PROJECT_ID]: (a, b) => compareIds(a.record.state.projectId, b.record.state.projectId),
  [ProjectGrantFieldName.GRANTED_ORG_ID]: (a, b) => compareIds(a.record.state.grantedOrgId, b.record.state.grantedOrgId),
};

const FILTER_RULES: FilterRules<ProjectGrantSearchFilter> = {
  projectId: [requiredChars('id')],
  grantedOrgId: [requiredChars('id')],
  roleKey: [requiredChars('key')],
  inIds: [maxIds()],
  state: [specified('state', 'state')],
};

export const searchProjectGrantsRpc = defineRpc({
  method: PlatformGrants.method.searchProjectGrants,
  permission: 'authenticated', // results limited to grants with project.grant.read (in the project or its organization)
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createProjectReadFilter(call, 'project.grant.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const projectOf = projectCache(call);
    const rows: Row[] = [];
    for await (const record of call.services.actors.scanRecords(call.instance.id, projectGrantKind)) {
      const orgId = record.meta.owner.id;
      if (onlyOrg !== undefined && orgId !== onlyOrg) continue;
      const project = await projectOf(record.state.projectId);
      if (project === undefined) continue;
      const row: Row = { id: record.id, record, project };
      if (!request.filters.every((f) => matchesFilter(row, f))) continue;
      if (!(await mayRead(orgId, record.state.projectId))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetProjectGrant) };
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

function matchesFilter(row: Row, filter: ProjectGrantSearchFilter): boolean {
  const f = filter.filter;
  const grant = row.record.state;
  switch (f.case) {
    case 'projectId':
      return grant.projectId === f.value.id;
    case 'grantedOrgId':
      return grant.grantedOrgId === f.value.id;
    case 'roleKey':
      return grant.roleKeys.includes(f.value.key) && row.project.state.roles.some((r) => r.key === f.value.key);
    case 'state':
      return toGrantState(grant.state) === f.value.state;
    case 'inIds':
      return f.value.ids.includes(row.id);
    default:
      return true;
  }
}
