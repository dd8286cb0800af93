/**
 * SearchIDPs: POST /resources/v3alpha/idps/_search (seed 000 "Rules for reusable resources" 6).
 * Instance context: the instance's IDPs and those of every organization the caller may read
 * IDPs in. Organization context: the instance's IDPs (with that org's policy and state) and
 * the org's own. Filters (id, name with any TextFilterMethod, effective state) are ANDed.
 */
import { type AggregateRecord, type Idp, idpIndexes, type IdpView } from '../../../../actors/index.js';
import { IDPFieldName, type IDPSearchFilter, PlatformIdentityProviders } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { State, TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { type FilterRule, knownEnum, maxChars, textCondition } from '../../shared/search.js';
import { parseWireState, requireIdpsFeature, toGetIdp, viewIn } from './shared.js';

const activeOrInactive: FilterRule<{ readonly state: State }> = {
  field: 'state',
  problem: (m) => (m.state === State.EFFECTIVE_STATE_ACTIVE || m.state === State.EFFECTIVE_STATE_INACTIVE ? undefined : 'must be EFFECTIVE_STATE_ACTIVE or EFFECTIVE_STATE_INACTIVE'),
};

const SEARCH: SearchDeclaration<IDPSearchFilter> = {
  table: idpIndexes,
  sort: { [IDPFieldName.IDP_FIELD_NAME_UNSPECIFIED]: 'created', [IDPFieldName.IDP_FIELD_NAME_NAME]: 'name' },
  rules: { id: [maxChars('id')], name: [maxChars('name'), knownEnum('method', TextFilterMethod)], state: [activeOrInactive] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'id':
        return { ids: [f.value.id] };
      case 'name':
        return textCondition('name', f.value.method, f.value.name);
      case 'state':
        // The effective state depends on the viewing organization's policy: checked on the row.
        return 'all';
      default:
        return 'none';
    }
  },
};

export const searchIdpsRpc = defineRpc({
  method: PlatformIdentityProviders.method.searchIDPs,
  permission: 'idp.read',
  async handle(request, call) {
    await requireIdpsFeature(call);
    const contextOrgId = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const canReadOrg = await createOrgReadFilter(call, 'idp.read');
    const states = request.filters.flatMap((f) => (f.filter.case === 'state' ? [parseWireState(f.filter.value.state)] : []));
    const views = new Map<string, IdpView>();
    const { details, rows } = await runSearch<IDPSearchFilter, AggregateRecord<Idp>>(call, SEARCH, request, {
      // An organization's IDPs: only in its own ctx and with idp.read there (scope = owner org).
      visible: async (_id, orgId) => orgId === '' || ((contextOrgId === undefined || orgId === contextOrgId) && (await canReadOrg(orgId))),
      scopeOnly: true,
      rowCheck: async (record) => {
        const owner = record.meta.owner;
        const view = await viewIn(call, record, owner.type === 'org' ? owner.id : contextOrgId);
        views.set(record.id, view);
        return states.every((state) => state === view.state);
      },
    });
    return { details, sortingColumn: request.sortingColumn, result: rows.map((r) => toGetIdp(r, views.get(r.id)!)) };
  },
});
