/**
 * SearchApps: POST /resources/v3alpha/apps/_search. Applications of every organization in which
 * the caller holds `project.app.read` (instance-wide holders see all) or whose project grants it
 * through a project membership, skipping those of removed projects; an org ctx narrows the
 * search to that organization. Filters are ANDed.
 */
import { type AggregateRecord, type Application, applicationIndexes } from '../../../../actors/index.js';
import { AppFieldName, AppType, PlatformApps, type AppSearchFilter } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, requiredChars, specified, textCondition } from '../../shared/search.js';
import { createProjectReadFilter } from '../projects/shared.js';
import { hasLiveProject, toGetApp } from './shared.js';

type Row = AggregateRecord<Application>;

const appTypes: Readonly<Record<number, string>> = { [AppType.OIDC]: 'oidc', [AppType.API]: 'api' };

const SEARCH: SearchDeclaration<AppSearchFilter> = {
  table: applicationIndexes,
  sort: {
    [AppFieldName.UNSPECIFIED]: 'created',
    [AppFieldName.CREATION_DATE]: 'created',
    [AppFieldName.ID]: 'id',
    [AppFieldName.CHANGE_DATE]: 'changed',
    [AppFieldName.NAME]: 'name',
    [AppFieldName.CLIENT_ID]: 'client_id',
  },
  rules: { name: [maxChars('name')], projectId: [requiredChars('id')], clientId: [requiredChars('id')], type: [specified('type', 'type')], inIds: [maxIds()] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'name':
        return textCondition('name', f.value.method, f.value.name);
      case 'projectId':
        return { index: 'project', equals: f.value.id };
      case 'clientId':
        return { index: 'client_id', equals: f.value.id };
      case 'type':
        return appTypes[f.value.type] === undefined ? 'none' : { index: 'type', equals: appTypes[f.value.type]! };
      case 'inIds':
        return { ids: f.value.ids };
      default:
        return 'none';
    }
  },
};

export const searchAppsRpc = defineRpc({
  method: PlatformApps.method.searchApps,
  permission: 'authenticated',
  async handle(request, call) {
    const mayRead = await createProjectReadFilter(call, 'project.app.read');
    const isLive = createLiveProjectCheck(call);
    const { details, rows } = await runSearch<AppSearchFilter, Row>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: call.scope.orgId }] } : {}),
      // Read permission may come from the app's project, which must still exist: rules on the row.
      rowCheck: async (row) => (await mayRead(row.state.orgId, row.state.projectId)) && (await isLive(row)),
    });
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetApp) };
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
