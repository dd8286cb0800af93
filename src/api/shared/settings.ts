/** Domain → wire conversions shared by the settings services (seed 000 "Settings details"). */
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { Owner, ResourceDetails } from '../../../actors/index.js';
import { DetailsSchema, type Details } from '../../gen/platform/settings/object/v3alpha/object_pb.js';
import { toWireOwner } from './convert.js';

/** Settings details: sequence and change date of the last change, and the owner of the settings. */
export function toSettingsDetails(details: { readonly sequence: number; readonly changeDate: number; readonly owner: Owner }): Details {
  return create(DetailsSchema, {
    sequence: BigInt(details.sequence),
    ...(details.changeDate > 0 ? { changeDate: timestampFromMs(details.changeDate) } : {}),
    owner: toWireOwner(details.owner),
  });
}

/** Settings details after a mutation answered with resource details. */
export function toSettingsDetailsAfter(details: ResourceDetails): Details {
  return toSettingsDetails({ sequence: details.sequence, changeDate: details.changeDate, owner: details.resourceOwner });
}
