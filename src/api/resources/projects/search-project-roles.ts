/** SearchProjectRoles: POST /resources/v3alpha/projects/{projectId}/roles/_search; filters are ANDed. */
import { z } from 'zod';
import { type ProjectRole } from '../../../../actors/index.js';
import {
  PlatformProjects,
  ProjectRoleFieldName,
  type ProjectRoleSearchFilter,
} from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireProject, toGetProjectRole } from './shared.js';

type Row = ProjectRole & { readonly id: string };

const byCreation = (a: Row, b: Row) => compareNumbers(a.createdAt, b.createdAt);

const comparators: Record<ProjectRoleFieldName, (a: Row, b: Row) => number> = {
  [ProjectRoleFieldName.UNSPECIFIED]: byCreation,
  [ProjectRoleFieldName.CREATION_DATE]: byCreation,
  [ProjectRoleFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.changedAt, b.changedAt),
  [ProjectRoleFieldName.KEY]: (a, b) => compareStrings(a.key, b.key),
  [ProjectRoleFieldName.DISPLAY_NAME]: (a, b) => compareStrings(a.displayName, b.displayName),
  [ProjectRoleFieldName.GROUP]: (a, b) => compareStrings(a.group, b.group),
};

const input = z.object({ projectId: resourceId });

const FILTER_RULES: FilterRules<ProjectRoleSearchFilter> = { key: [maxChars('text')], displayName: [maxChars('text')], group: [maxChars('text')] };

export const searchProjectRolesRpc = defineRpc({
  method: PlatformProjects.method.searchProjectRoles,
  permission: 'authenticated', // project.role.read, checked in the project's organization
  async handle(request, call) {
    const { projectId } = parseWith(input, request);
    const query = parseListQuery(request.query);
    validateSearchFilters(request.filters, FILTER_RULES);
    const project = await requireProject(call, projectId, 'project.role.read');
    const rows: Row[] = project.state.roles.filter((r) => request.filters.every((f) => matchesFilter(r, f))).map((r) => ({ ...r, id: r.key }));
    const compare = comparators[request.sortingColumn] ?? byCreation;
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map((r) => toGetProjectRole(r, project)) };
  },
});

function matchesFilter(role: ProjectRole, filter: ProjectRoleSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'key':
      return matchesText(role.key, f.value.text, f.value.method);
    case 'displayName':
      return matchesText(role.displayName, f.value.text, f.value.method);
    case 'group':
      return matchesText(role.group, f.value.text, f.value.method);
    default:
      return true;
  }
}
