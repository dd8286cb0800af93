/** Organization read shapes and lookups shared by the organization operations. */
import { create } from '@bufbuild/protobuf';
import { type AggregateRecord, detailsOf, instanceSettingsKind, notFound, type Org, orgKind } from '../../../../actors/index.js';
import {
  GetOrganizationSchema,
  type GetOrganization,
} from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { State } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';

export function toGetOrganization(record: AggregateRecord<Org>, defaultOrgId: string): GetOrganization {
  return create(GetOrganizationSchema, {
    details: toDetails(detailsOf(record)),
    organization: { name: record.state.name },
    state: record.state.state === 'active' ? State.EFFECTIVE_STATE_ACTIVE : State.EFFECTIVE_STATE_INACTIVE,
    primaryDomain: record.state.primaryDomain,
    isInstanceDefault: record.id === defaultOrgId,
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

export async function readOrg(call: CallContext, orgId: string): Promise<AggregateRecord<Org>> {
  const record = await call.services.actors.readRecord(call.instance.id, orgKind, orgId);
  if (record === undefined) throw notFound('org.not_found', 'organization not found');
  return record;
}

export async function defaultOrgId(call: CallContext): Promise<string> {
  const settings = await call.services.actors.readRecord(call.instance.id, instanceSettingsKind, call.instance.id);
  return settings?.state.defaultOrgId ?? '';
}
