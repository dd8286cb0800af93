/** SearchProjectRoles: POST /resources/v3alpha/projects/{projectId}/roles/_search; filters are ANDed. */
import { z } from 'zod';
import { type FieldViolation, type ProjectRole, validationFailed } from '../../../../actors/index.js';
import {
  PlatformProjects,
  ProjectRoleFieldName,
  type ProjectRoleSearchFilter,
} from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareNumbers, compareStrings, matchesText, paginate, parseListQuery } from '../../shared/search.js';
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

export const searchProjectRolesRpc = defineRpc({
  method: PlatformProjects.method.searchProjectRoles,
  permission: 'authenticated', // project.role.read, checked in the project's organization
  async handle(request, call) {
    const { projectId } = parseWith(input, request);
    const query = parseListQuery(request.query);
    validateFilters(request.filters);
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

function validateFilters(filters: readonly ProjectRoleSearchFilter[]): void {
  const violations: FieldViolation[] = [];
  filters.forEach((filter, i) => {
    const f = filter.filter;
    if (f.case === undefined) violations.push({ field: `filters[${i}]`, description: 'exactly one filter must be set' });
    else if (f.value.text.length > 200) violations.push({ field: `filters[${i}].${f.case}.text`, description: 'must be at most 200 characters' });
  });
  if (violations.length > 0) throw validationFailed(violations);
}
