/** Domain → wire conversions shared by every resource service (Details, Owner, timestamps). */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Owner, ResourceDetails } from '../../../actors/index.js';
import { OwnerSchema, OwnerType, type Owner as WireOwner } from '../../gen/platform/object/v3alpha/object_pb.js';
import { DetailsSchema, type Details } from '../../gen/platform/resources/object/v3alpha/object_pb.js';

const ownerTypes = { system: OwnerType.SYSTEM, instance: OwnerType.INSTANCE, org: OwnerType.ORG } as const;

export function toWireOwner(owner: Owner): WireOwner {
  return create(OwnerSchema, { type: ownerTypes[owner.type], id: owner.id });
}

export function toTimestamp(ms: number): Timestamp | undefined {
  return ms > 0 ? timestampFromMs(ms) : undefined;
}

export function toDetails(details: ResourceDetails): Details {
  return create(DetailsSchema, {
    id: details.id,
    sequence: BigInt(details.sequence),
    ...(details.changeDate > 0 ? { changeDate: timestampFromMs(details.changeDate) } : {}),
    resourceOwner: toWireOwner(details.resourceOwner),
  });
}
