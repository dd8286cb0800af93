/** Domain lookups, input shapes and read shapes shared by the PlatformDomains operations. */
import { create } from '@bufbuild/protobuf';
import { z } from 'zod';
import {
  type AggregateRecord,
  type DomainValidationType as DomainType,
  notFound,
  ORG_DOMAIN_SCOPE,
  type Org,
  type OrgDomain,
  orgDomains,
  orgKind,
  type ResourceDetails,
} from '../../../../actors/index.js';
import {
  DomainValidationType,
  GetDomainSchema,
  type GetDomain,
} from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** A host name: ≤ 253 characters, ≥ 2 labels of letters, digits and inner hyphens, a non-numeric last label. */
export function isHostName(value: string): boolean {
  const labels = value.split('.');
  return value.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1]!);
}

/** A domain name at the edge: trimmed, lower case, without a trailing dot. */
export const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v) => v.replace(/\.$/, ''))
  .pipe(z.string().min(1, 'required').max(253, 'must be at most 253 characters').refine(isHostName, 'must be a host name such as example.com'));

export const validationTypes = { dns: DomainValidationType.DNS, http: DomainValidationType.HTTP } as const;

/** Wire → domain; UNSPECIFIED is `fallback`. */
export function parseValidationType(wire: DomainValidationType, fallback: DomainType): DomainType {
  if (wire === DomainValidationType.HTTP) return 'http';
  if (wire === DomainValidationType.DNS) return 'dns';
  return fallback;
}

/** A defined DomainValidationType (an unknown number sent over the wire is refused). */
export const validationTypeField = z.union(
  [z.literal(DomainValidationType.UNSPECIFIED), z.literal(DomainValidationType.DNS), z.literal(DomainValidationType.HTTP)],
  'must be a DOMAIN_VALIDATION_TYPE_* value',
);

export interface FoundDomain {
  readonly orgId: string;
  readonly org: AggregateRecord<Org>;
  readonly entry: OrgDomain;
}

/** The domain (404 `domain.not_found`; also outside the ctx organization) and its organization. */
export async function requireDomain(call: CallContext, domain: string): Promise<FoundDomain> {
  const actors = call.services.actors;
  const orgId = await actors.findUnique(call.instance.id, ORG_DOMAIN_SCOPE, domain);
  const org = orgId === undefined ? undefined : await actors.readRecord(call.instance.id, orgKind, orgId);
  const entry = org === undefined ? undefined : orgDomains(org.state).find((d) => d.domain === domain);
  const outsideCtx = call.scope.type === 'org' && call.scope.orgId !== orgId;
  if (orgId === undefined || org === undefined || entry === undefined || outsideCtx) throw notFound('domain.not_found', 'domain not found');
  return { orgId, org, entry };
}

/** Like requireDomain, then the permission in the domain's organization (403). */
export async function requireDomainWith(call: CallContext, domain: string, permission: string): Promise<FoundDomain> {
  const found = await requireDomain(call, domain);
  await call.require(permission, found.orgId);
  return found;
}

/** Details of a domain as it is (rows from before domains existed fall back to the org's). */
export function domainDetails(found: FoundDomain): ResourceDetails {
  const { org, entry } = found;
  return {
    id: entry.domain,
    sequence: entry.sequence > 0 ? entry.sequence : org.meta.sequence,
    changeDate: entry.changedAt > 0 ? entry.changedAt : org.meta.changedAt,
    resourceOwner: org.meta.owner,
  };
}

export function toGetDomain(found: FoundDomain): GetDomain {
  const { org, entry } = found;
  const createdAt = entry.createdAt > 0 ? entry.createdAt : org.meta.createdAt;
  const creationDate = toTimestamp(createdAt);
  return create(GetDomainSchema, {
    details: toDetails(domainDetails(found)),
    domain: entry.domain,
    isVerified: entry.isVerified,
    isPrimary: org.state.primaryDomain === entry.domain,
    validationType: validationTypes[entry.validationType],
    ...(creationDate === undefined ? {} : { creationDate }),
  });
}
