/**
 * SearchProjectRoles: POST /resources/v3alpha/projects/{projectId}/roles/_search; filters are
 * ANDed. Runs on the project_roles sub-row indexes, narrowed to the project's entries.
 */
import { z } from 'zod';
import { PARENT_INDEX, type Project, type ProjectRole, projectRoleIndexes, type SubRow } from '../../../../actors/index.js';
import { PlatformProjects, ProjectRoleFieldName, type ProjectRoleSearchFilter } from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { checkSearchRequest, runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, textCondition } from '../../shared/search.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireProject, toGetProjectRole } from './shared.js';

const input = z.object({ projectId: resourceId });

const SEARCH: SearchDeclaration<ProjectRoleSearchFilter> = {
  table: projectRoleIndexes,
  sort: {
    [ProjectRoleFieldName.UNSPECIFIED]: 'created',
    [ProjectRoleFieldName.CREATION_DATE]: 'created',
    [ProjectRoleFieldName.CHANGE_DATE]: 'changed',
    [ProjectRoleFieldName.KEY]: 'key',
    [ProjectRoleFieldName.DISPLAY_NAME]: 'display_name',
    [ProjectRoleFieldName.GROUP]: 'group',
  },
  rules: { key: [maxChars('text')], displayName: [maxChars('text')], group: [maxChars('text')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'key':
        return textCondition('key', f.value.method, f.value.text);
      case 'displayName':
        return textCondition('display_name', f.value.method, f.value.text);
      case 'group':
        return textCondition('group', f.value.method, f.value.text);
      default:
        return 'all';
    }
  },
};

export const searchProjectRolesRpc = defineRpc({
  method: PlatformProjects.method.searchProjectRoles,
  permission: 'authenticated', // project.role.read, checked in the project's organization
  async handle(request, call) {
    const { projectId } = parseWith(input, request);
    checkSearchRequest(SEARCH, request);
    const project = await requireProject(call, projectId, 'project.role.read');
    const { details, rows } = await runSearch<ProjectRoleSearchFilter, SubRow<Project, ProjectRole>>(call, SEARCH, request, {
      conditions: [{ index: PARENT_INDEX, equals: project.id }],
    });
    return { details, sortingColumn: request.sortingColumn, result: rows.map((row) => toGetProjectRole(row.item, row.parent)) };
  },
});
