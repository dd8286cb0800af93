/**
 * SearchTargets: POST /resources/v3alpha/targets/_search. Every target of the instance by
 * default; filters (name with any TextFilterMethod, inIds) are ANDed; all ten sort columns.
 */
import { type AggregateRecord, type Target, targetIndexes } from '../../../../actors/index.js';
import { PlatformActions, TargetFieldName, type TargetSearchFilter } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { knownEnum, maxChars, maxIds, textCondition } from '../../shared/search.js';
import { requireActionsFeature, toGetTarget } from './shared.js';

const SEARCH: SearchDeclaration<TargetSearchFilter> = {
  table: targetIndexes,
  sort: {
    [TargetFieldName.UNSPECIFIED]: 'created',
    [TargetFieldName.ID]: 'id',
    [TargetFieldName.CREATION_DATE]: 'created',
    [TargetFieldName.CHANGE_DATE]: 'changed',
    [TargetFieldName.NAME]: 'name',
    [TargetFieldName.TARGET_TYPE]: 'target_type',
    [TargetFieldName.URL]: 'url',
    [TargetFieldName.TIMEOUT]: 'timeout',
    [TargetFieldName.ASYNC]: 'async',
    [TargetFieldName.INTERRUPT_ON_ERROR]: 'interrupt',
  },
  rules: { name: [maxChars('name'), knownEnum('method', TextFilterMethod)], inIds: [maxIds()] },
  condition({ filter: f }) {
    if (f.case === 'name') return textCondition('name', f.value.method, f.value.name);
    if (f.case === 'inIds') return { ids: f.value.ids };
    return 'none';
  },
};

export const searchTargetsRpc = defineRpc({
  method: PlatformActions.method.searchTargets,
  permission: 'action.target.read',
  async handle(request, call) {
    await requireActionsFeature(call);
    const { details, rows } = await runSearch<TargetSearchFilter, AggregateRecord<Target>>(call, SEARCH, request);
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetTarget) };
  },
});
