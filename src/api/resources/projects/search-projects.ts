/**
 * SearchProjects: POST /resources/v3alpha/projects/_search. Projects of every organization in
 * which the caller holds `project.read` (instance-wide holders see all), and projects where a
 * project membership grants it; an org ctx narrows the search to that organization. Filters
 * are ANDed.
 */
import { type AggregateRecord, type Project, projectKind } from '../../../../actors/index.js';

import {
  PlatformProjects,
  ProjectFieldName,
  type ProjectSearchFilter,
} from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, requiredChars, specified, validateSearchFilters } from '../../shared/search.js';
import { createProjectReadFilter, toProjectState, toGetProject } from './shared.js';

type Row = AggregateRecord<Project>;

const byCreation = (a: Row, b: Row) => compareNumbers(a.meta.createdAt, b.meta.createdAt);

const comparators: Record<ProjectFieldName, (a: Row, b: Row) => number> = {
  [ProjectFieldName.UNSPECIFIED]: byCreation,
  [ProjectFieldName.CREATION_DATE]: byCreation,
  [ProjectFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [ProjectFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [ProjectFieldName.NAME]: (a, b) => compareStrings(a.state.name, b.state.name),
};

const FILTER_RULES: FilterRules<ProjectSearchFilter> = {
  name: [maxChars('name')],
  inIds: [maxIds()],
  orgId: [requiredChars('id')],
  state: [specified('state', 'state')],
};

export const searchProjectsRpc = defineRpc({
  method: PlatformProjects.method.searchProjects,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createProjectReadFilter(call, 'project.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, projectKind)) {
      if (onlyOrg !== undefined && row.state.orgId !== onlyOrg) continue;
      if (!request.filters.every((f) => matchesFilter(row, f))) continue;
      if (!(await mayRead(row.state.orgId, row.id))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetProject) };
  },
});

function matchesFilter(row: Row, filter: ProjectSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'name':
      return matchesText(row.state.name, f.value.name, f.value.method);
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'state':
      return toProjectState(row.state) === f.value.state;
    case 'orgId':
      return row.state.orgId === f.value.id;
    default:
      return true;
  }
}
