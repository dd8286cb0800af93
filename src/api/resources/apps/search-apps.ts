/**
 * SearchApps: POST /resources/v3alpha/apps/_search. Applications of every organization in which
 * the caller holds `project.app.read` (instance-wide holders see all) or whose project grants it
 * through a project membership, skipping those of removed projects; an org ctx narrows the
 * search to that organization. Filters are ANDed.
 */
import { type AggregateRecord, type Application, applicationKind } from '../../../../actors/index.js';
import { AppFieldName, AppType, PlatformApps, type AppSearchFilter } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, requiredChars, specified, validateSearchFilters } from '../../shared/search.js';
import { createProjectReadFilter } from '../projects/shared.js';
import { hasLiveProject, toGetApp } from './shared.js';

type Row = AggregateRecord<Application>;

const byCreation = (a: Row, b: Row) => compareNumbers(a.meta.createdAt, b.meta.createdAt);

const comparators: Record<AppFieldName, (a: Row, b: Row) => number> = {
  [AppFieldName.UNSPECIFIED]: byCreation,
  [AppFieldName.CREATION_DATE]: byCreation,
  [AppFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [AppFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [AppFieldName.NAME]: (a, b) => compareStrings(a.state.name, b.state.name),
  [AppFieldName.CLIENT_ID]: (a, b) => compareStrings(a.state.clientId, b.state.clientId),
};

const FILTER_RULES: FilterRules<AppSearchFilter> = {
  name: [maxChars('name')],
  projectId: [requiredChars('id')],
  clientId: [requiredChars('id')],
  type: [specified('type', 'type')],
  inIds: [maxIds()],
};

export const searchAppsRpc = defineRpc({
  method: PlatformApps.method.searchApps,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    validateSearchFilters(request.filters, FILTER_RULES);
    const mayRead = await createProjectReadFilter(call, 'project.app.read');
    const isLive = createLiveProjectCheck(call);
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, applicationKind)) {
      if (onlyOrg !== undefined && row.state.orgId !== onlyOrg) continue;
      if (!request.filters.every((f) => matchesFilter(row, f))) continue;
      if (!(await mayRead(row.state.orgId, row.state.projectId)) || !(await isLive(row))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetApp) };
  },
});

/** Per-request cache of "the app's project still exists". */
function createLiveProjectCheck(call: CallContext): (app: Row) => Promise<boolean> {
  const cache = new Map<string, boolean>();
  return async (app) => {
    let live = cache.get(app.state.projectId);
    if (live === undefined) cache.set(app.state.projectId, (live = await hasLiveProject(call, app)));
    return live;
  };
}

function matchesFilter(row: Row, filter: AppSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'name':
      return matchesText(row.state.name, f.value.name, f.value.method);
    case 'projectId':
      return row.state.projectId === f.value.id;
    case 'clientId':
      return row.state.clientId === f.value.id;
    case 'type':
      return (row.state.config.type === 'oidc' ? AppType.OIDC : AppType.API) === f.value.type;
    case 'inIds':
      return f.value.ids.includes(row.id);
    default:
      return true;
  }
}
