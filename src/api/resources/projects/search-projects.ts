/**
 * SearchProjects: POST /resources/v3alpha/projects/_search. Projects of every organization in
 * which the caller holds `project.read` (instance-wide holders see all), and projects where a
 * project membership grants it; an org ctx narrows the search to that organization. Filters
 * are ANDed.
 */
import { type AggregateRecord, type Project, projectIndexes } from '../../../../actors/index.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  PlatformProjects,
  ProjectFieldName,
  type ProjectSearchFilter,
} from '../../../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, requiredChars, specified, textCondition } from '../../shared/search.js';
import { createProjectReadFilter, toGetProject } from './shared.js';

const states: Readonly<Record<number, string>> = { [State.EFFECTIVE_STATE_ACTIVE]: 'active', [State.EFFECTIVE_STATE_INACTIVE]: 'inactive' };

const SEARCH: SearchDeclaration<ProjectSearchFilter> = {
  table: projectIndexes,
  sort: {
    [ProjectFieldName.UNSPECIFIED]: 'created',
    [ProjectFieldName.CREATION_DATE]: 'created',
    [ProjectFieldName.ID]: 'id',
    [ProjectFieldName.CHANGE_DATE]: 'changed',
    [ProjectFieldName.NAME]: 'name',
  },
  rules: { name: [maxChars('name')], inIds: [maxIds()], orgId: [requiredChars('id')], state: [specified('state', 'state')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'name':
        return textCondition('name', f.value.method, f.value.name);
      case 'inIds':
        return { ids: f.value.ids };
      case 'state':
        return states[f.value.state] === undefined ? 'none' : { index: 'state', equals: states[f.value.state]! };
      case 'orgId':
        return { index: 'org', equals: f.value.id };
      default:
        return 'none';
    }
  },
};

export const searchProjectsRpc = defineRpc({
  method: PlatformProjects.method.searchProjects,
  permission: 'authenticated',
  async handle(request, call) {
    const mayRead = await createProjectReadFilter(call, 'project.read');
    const { details, rows } = await runSearch<ProjectSearchFilter, AggregateRecord<Project>>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: call.scope.orgId }] } : {}),
      visible: (id, orgId) => mayRead(orgId, id),
    });
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetProject) };
  },
});
