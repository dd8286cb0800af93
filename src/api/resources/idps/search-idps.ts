/**
 * SearchIDPs: POST /resources/v3alpha/idps/_search (seed 000 "Rules for reusable resources" 6).
 * Instance context: the instance's IDPs and those of every organization the caller may read
 * IDPs in. Organization context: the instance's IDPs (with that org's policy and state) and
 * the org's own. Filters (id, name with any TextFilterMethod, effective state) are ANDed.
 */
import { type AggregateRecord, type Idp, idpKind, type IdpView } from '../../../../actors/index.js';
import { IDPFieldName, type IDPSearchFilter, PlatformIdentityProviders } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { State, TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { compareNumbers, compareStrings, type FilterRule, type FilterRules, knownEnum, matchesText, maxChars, paginate, parseListQuery, validateSearchFilters } from '../../shared/search.js';
import { parseWireState, requireIdpsFeature, toGetIdp, viewIn } from './shared.js';

interface Row {
  readonly id: string;
  readonly record: AggregateRecord<Idp>;
  readonly view: IdpView;
}

const byCreation = (a: Row, b: Row) => compareNumbers(a.record.meta.createdAt, b.record.meta.createdAt);
const comparators: Record<IDPFieldName, (a: Row, b: Row) => number> = {
  [IDPFieldName.IDP_FIELD_NAME_UNSPECIFIED]: byCreation,
  [IDPFieldName.IDP_FIELD_NAME_NAME]: (a, b) => compareStrings(a.record.state.name, b.record.state.name),
};

const activeOrInactive: FilterRule<{ readonly state: State }> = {
  field: 'state',
  problem: (m) => (m.state === State.EFFECTIVE_STATE_ACTIVE || m.state === State.EFFECTIVE_STATE_INACTIVE ? undefined : 'must be EFFECTIVE_STATE_ACTIVE or EFFECTIVE_STATE_INACTIVE'),
};

const FILTER_RULES: FilterRules<IDPSearchFilter> = {
  id: [maxChars('id')],
  name: [maxChars('name'), knownEnum('method', TextFilterMethod)],
  state: [activeOrInactive],
};

export const searchIdpsRpc = defineRpc({
  method: PlatformIdentityProviders.method.searchIDPs,
  permission: 'idp.read',
  async handle(request, call) {
    await requireIdpsFeature(call);
    const query = parseListQuery(request.query);
    validateSearchFilters(request.filters, FILTER_RULES);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    const rows: Row[] = [];
    for await (const row of visibleRows(call)) {
      if (request.filters.every((f) => matchesFilter(row, f))) rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map((r) => toGetIdp(r.record, r.view)) };
  },
});

async function* visibleRows(call: CallContext): AsyncIterable<Row> {
  const contextOrgId = call.scope.type === 'org' ? call.scope.orgId : undefined;
  const canReadOrg = await createOrgReadFilter(call, 'idp.read');
  for await (const record of call.services.actors.scanRecords(call.instance.id, idpKind)) {
    const owner = record.meta.owner;
    if (owner.type === 'org') {
      if (contextOrgId !== undefined && owner.id !== contextOrgId) continue;
      if (!(await canReadOrg(owner.id))) continue;
      yield { id: record.id, record, view: await viewIn(call, record, owner.id) };
    } else {
      yield { id: record.id, record, view: await viewIn(call, record, contextOrgId) };
    }
  }
}

function matchesFilter(row: Row, filter: IDPSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'id':
      return row.id === f.value.id;
    case 'name':
      return matchesText(row.record.state.name, f.value.name, f.value.method);
    case 'state':
      return parseWireState(f.value.state) === row.view.state;
    default:
      return true;
  }
}
