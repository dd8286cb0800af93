/** SearchAppKeys: POST /resources/v3alpha/apps/{appId}/keys/_search; newest first unless `query.asc`. */
import { create } from '@bufbuild/protobuf';
import { z } from 'zod';
import { type AggregateRecord, type AppKey, type Application } from '../../../../actors/index.js';
import { GetAppKeySchema, PlatformApps, type AppKeySearchFilter, type GetAppKey } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toTimestamp, toWireOwner } from '../../shared/convert.js';
import { compareNumbers, type FilterRules, maxIds, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireApp } from './shared.js';

const input = z.object({ appId: resourceId });

const FILTER_RULES: FilterRules<AppKeySearchFilter> = { inIds: [maxIds()] };

export const searchAppKeysRpc = defineRpc({
  method: PlatformApps.method.searchAppKeys,
  permission: 'authenticated', // project.app.read, checked in the app's organization
  async handle(request, call) {
    const { appId } = parseWith(input, request);
    const query = parseListQuery(request.query);
    validateSearchFilters(request.filters, FILTER_RULES);
    const app = await requireApp(call, appId, 'project.app.read');
    const rows = app.state.keys.filter((key) => request.filters.every((f) => matchesFilter(key, f)));
    const page = paginate(rows, (a, b) => compareNumbers(a.createdAt, b.createdAt), query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, result: page.items.map((key) => toGetAppKey(key, app)) };
  },
});

function toGetAppKey(key: AppKey, app: AggregateRecord<Application>): GetAppKey {
  return create(GetAppKeySchema, {
    details: { id: key.id, sequence: BigInt(key.sequence), changeDate: toTimestamp(key.createdAt), resourceOwner: toWireOwner(app.meta.owner) },
    expirationDate: toTimestamp(key.expiresAt),
    creationDate: toTimestamp(key.createdAt),
  });
}

function matchesFilter(key: AppKey, filter: AppKeySearchFilter): boolean {
  const f = filter.filter;
  return f.case === 'inIds' ? f.value.ids.includes(key.id) : true;
}
