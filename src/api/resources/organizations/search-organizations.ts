/**
 * SearchOrganizations: POST /resources/v3alpha/organizations/_search. All organizations of
 * the instance the caller may read (instance-wide `org.read`, or a membership in the org);
 * an org ctx narrows the search to that org. Filters are ANDed.
 */
import { type AggregateRecord, type Org, orgIndexes } from '../../../../actors/index.js';
import {
  OrganizationFieldName,
  PlatformOrganizations,
  type OrganizationSearchFilter,
} from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, specified, textCondition } from '../../shared/search.js';
import { defaultOrgId, toGetOrganization } from './shared.js';

const states: Readonly<Record<number, string>> = { [State.EFFECTIVE_STATE_ACTIVE]: 'active', [State.EFFECTIVE_STATE_INACTIVE]: 'inactive' };

const SEARCH: SearchDeclaration<OrganizationSearchFilter> = {
  table: orgIndexes,
  sort: {
    [OrganizationFieldName.UNSPECIFIED]: 'created',
    [OrganizationFieldName.CREATION_DATE]: 'created',
    [OrganizationFieldName.ID]: 'id',
    [OrganizationFieldName.CHANGE_DATE]: 'changed',
    [OrganizationFieldName.NAME]: 'name',
    [OrganizationFieldName.PRIMARY_DOMAIN]: 'primary_domain',
  },
  rules: { name: [maxChars('name')], primaryDomain: [maxChars('domain')], inIds: [maxIds()], state: [specified('state', 'state')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'name':
        return textCondition('name', f.value.method, f.value.name);
      case 'primaryDomain':
        return textCondition('primary_domain', f.value.method, f.value.domain);
      case 'inIds':
        return { ids: f.value.ids };
      case 'state': {
        const state = states[f.value.state];
        return state === undefined ? 'none' : { index: 'state', equals: state };
      }
      default:
        return 'none';
    }
  },
};

export const searchOrganizationsRpc = defineRpc({
  method: PlatformOrganizations.method.searchOrganizations,
  permission: 'authenticated',
  async handle(request, call) {
    const mayReadAll = await call.can('org.read');
    const { details, rows } = await runSearch<OrganizationSearchFilter, AggregateRecord<Org>>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ ids: [call.scope.orgId] }] } : {}),
      ...(mayReadAll ? {} : { visible: (id: string) => call.can('org.read', id) }),
    });
    const defaultId = await defaultOrgId(call);
    return { details, sortingColumn: request.sortingColumn, result: rows.map((row) => toGetOrganization(row, defaultId)) };
  },
});
