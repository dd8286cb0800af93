/**
 * SearchAppKeys: POST /resources/v3alpha/apps/{appId}/keys/_search; newest first unless
 * `query.asc`. Runs on the app_keys sub-row indexes, narrowed to the app's entries.
 */
import { create } from '@bufbuild/protobuf';
import { z } from 'zod';
import { type AggregateRecord, type AppKey, type Application, appKeyIndexes, PARENT_INDEX, type SubRow } from '../../../../actors/index.js';
import { GetAppKeySchema, PlatformApps, type AppKeySearchFilter, type GetAppKey } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toTimestamp, toWireOwner } from '../../shared/convert.js';
import { checkSearchRequest, runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxIds } from '../../shared/search.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireApp } from './shared.js';

const input = z.object({ appId: resourceId });

const SEARCH: SearchDeclaration<AppKeySearchFilter> = {
  table: appKeyIndexes,
  sort: { 0: 'created' },
  rules: { inIds: [maxIds()] },
  condition: ({ filter: f }) => (f.case === 'inIds' ? { index: 'key_id', anyOf: f.value.ids } : 'all'),
};

export const searchAppKeysRpc = defineRpc({
  method: PlatformApps.method.searchAppKeys,
  permission: 'authenticated', // project.app.read, checked in the app's organization
  async handle(request, call) {
    const { appId } = parseWith(input, request);
    checkSearchRequest(SEARCH, request);
    const app = await requireApp(call, appId, 'project.app.read');
    const { details, rows } = await runSearch<AppKeySearchFilter, SubRow<Application, AppKey>>(call, SEARCH, request, {
      conditions: [{ index: PARENT_INDEX, equals: app.id }],
    });
    return { details, result: rows.map((row) => toGetAppKey(row.item, row.parent)) };
  },
});

function toGetAppKey(key: AppKey, app: AggregateRecord<Application>): GetAppKey {
  return create(GetAppKeySchema, {
    details: { id: key.id, sequence: BigInt(key.sequence), changeDate: toTimestamp(key.createdAt), resourceOwner: toWireOwner(app.meta.owner) },
    expirationDate: toTimestamp(key.expiresAt),
    creationDate: toTimestamp(key.createdAt),
  });
}
