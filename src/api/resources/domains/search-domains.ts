/**
 * SearchDomains: POST /resources/v3alpha/domains/_search. The domains of every organization the
 * caller may read (`org.read` instance-wide or in the org); an org ctx narrows to that org.
 * Filters are ANDed; the search runs on the org_domains sub-row indexes.
 */
import { idTerm, numberTerm, type Org, type OrgDomain, orgDomainIndexes, type SubRow } from '../../../../actors/index.js';
import { DomainFieldName, PlatformDomains, type DomainSearchFilter } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { maxChars, textCondition } from '../../shared/search.js';
import { toGetDomain } from './shared.js';

const SEARCH: SearchDeclaration<DomainSearchFilter> = {
  table: orgDomainIndexes,
  sort: {
    [DomainFieldName.UNSPECIFIED]: 'created',
    [DomainFieldName.CREATION_DATE]: 'created',
    [DomainFieldName.DOMAIN]: 'domain',
    [DomainFieldName.CHANGE_DATE]: 'changed',
    [DomainFieldName.ORG_ID]: 'org',
  },
  rules: { domain: [maxChars('domain', 253)], orgId: [maxChars('id')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'domain':
        return textCondition('domain', f.value.method, f.value.domain);
      case 'orgId':
        return { index: 'org', equals: idTerm(f.value.id) };
      case 'verified':
        return { index: 'verified', equals: numberTerm(f.value.isVerified ? 1 : 0) };
      case 'primary':
        return { index: 'primary', equals: numberTerm(f.value.isPrimary ? 1 : 0) };
      default:
        return 'all';
    }
  },
};

export const searchDomainsRpc = defineRpc({
  method: PlatformDomains.method.searchDomains,
  permission: 'authenticated',
  async handle(request, call) {
    const mayRead = await createOrgReadFilter(call, 'org.read');
    const { details, rows } = await runSearch<DomainSearchFilter, SubRow<Org, OrgDomain>>(call, SEARCH, request, {
      ...(call.scope.type === 'org' ? { conditions: [{ index: 'org', equals: idTerm(call.scope.orgId) }] } : {}),
      visible: (_id, orgId) => mayRead(orgId),
      scopeOnly: true,
    });
    const result = rows.map((r) => toGetDomain({ orgId: r.parent.id, org: r.parent, entry: r.item }));
    return { details, sortingColumn: request.sortingColumn, result };
  },
});
