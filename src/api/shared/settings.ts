/**
 * Domain → wire conversions shared by the settings services (seed 000 "Settings details").
 * `change_date` is always present: settings never set carry their owner's creation time (the
 * instance's or the organization's), the moment the defaults began to apply (issue #12 item 14).
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { instanceKind, orgKind, SYSTEM_TENANT, type ActorSystem, type Owner, type ResourceDetails } from '../../../actors/index.js';
import { DetailsSchema, type Details } from '../../gen/platform/settings/object/v3alpha/object_pb.js';
import { toWireOwner } from './convert.js';

export interface SettingsDetailsInput {
  readonly sequence: number;
  /** Epoch milliseconds of the last change; 0 when never set. */
  readonly changeDate: number;
  readonly owner: Owner;
}

/** Settings details: sequence and change date of the last change, and the owner of the settings. */
export async function toSettingsDetails(actors: ActorSystem, instanceId: string, details: SettingsDetailsInput): Promise<Details> {
  const changeDate = details.changeDate > 0 ? details.changeDate : await ownerCreatedAt(actors, instanceId, details.owner);
  return create(DetailsSchema, {
    sequence: BigInt(details.sequence),
    ...(changeDate > 0 ? { changeDate: timestampFromMs(changeDate) } : {}),
    owner: toWireOwner(details.owner),
  });
}

/** Settings details after a mutation answered with resource details (a no-op on unset settings included). */
export function toSettingsDetailsAfter(actors: ActorSystem, instanceId: string, details: ResourceDetails): Promise<Details> {
  return toSettingsDetails(actors, instanceId, { sequence: details.sequence, changeDate: details.changeDate, owner: details.resourceOwner });
}

async function ownerCreatedAt(actors: ActorSystem, instanceId: string, owner: Owner): Promise<number> {
  if (owner.type === 'org') return (await actors.readRecord(instanceId, orgKind, owner.id))?.meta.createdAt ?? 0;
  if (owner.type === 'instance') return (await actors.readRecord(SYSTEM_TENANT, instanceKind, owner.id))?.meta.createdAt ?? 0;
  return 0; // the system's defaults have no creation time
}
