/**
 * SearchInstances: POST /resources/v3alpha/instances/_search. Every instance of the system;
 * filters (name, ids, domain) are ANDed; the domain filter matches when any domain matches.
 */
import { instanceIndexes, SYSTEM_TENANT } from '../../../../actors/index.js';
import {
  InstanceFieldName,
  PlatformInstances,
  type InstanceSearchFilter,
} from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { runSearch, type SearchCall, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, textCondition } from '../../shared/search.js';
import { toGetInstance, type InstanceRow } from './shared.js';

const SEARCH: SearchDeclaration<InstanceSearchFilter, SearchCall> = {
  table: instanceIndexes,
  sort: {
    [InstanceFieldName.UNSPECIFIED]: 'created',
    [InstanceFieldName.CREATION_DATE]: 'created',
    [InstanceFieldName.ID]: 'id',
    [InstanceFieldName.CHANGE_DATE]: 'changed',
    [InstanceFieldName.NAME]: 'name',
  },
  rules: { name: [maxChars('name')], domain: [maxChars('domain', 253)], inIds: [maxIds()] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'name':
        return textCondition('name', f.value.method, f.value.name);
      case 'inIds':
        return { ids: f.value.ids };
      case 'domain':
        return textCondition('domain', f.value.method, f.value.domain);
      default:
        return 'none';
    }
  },
};

export const searchInstancesRpc = defineSystemRpc({
  method: PlatformInstances.method.searchInstances,
  permission: 'system.instance.read',
  async handle(request, call) {
    const { details, rows } = await runSearch<InstanceSearchFilter, InstanceRow, SearchCall>(call, SEARCH, request, { instanceId: SYSTEM_TENANT });
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetInstance) };
  },
});
