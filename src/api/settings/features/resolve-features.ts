/**
 * ResolveFeatures: GET /settings/v3alpha/features. Every known flag plus any other stored for
 * the instance; a flag the instance never set is off and owned by the system (its default).
 * In an organization context the instance's values are inherited (owner: the instance).
 */
import { instanceOwner, instanceSettingsKind, KNOWN_FEATURES, systemOwner } from '../../../../actors/index.js';
import { PlatformFeatures } from '../../../gen/platform/settings/feature/v3alpha/feature_service_pb.js';
import type { ResolvedBoolSchema } from '../../../gen/platform/settings/object/v3alpha/object_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { defineRpc } from '../../invoker.js';
import { toWireOwner } from '../../shared/convert.js';
import { toSettingsDetails } from '../../shared/settings.js';

export const resolveFeaturesRpc = defineRpc({
  method: PlatformFeatures.method.resolveFeatures,
  permission: 'iam.feature.read',
  async handle(_request, call) {
    const instanceId = call.instance.id;
    const settings = await call.services.actors.readRecord(instanceId, instanceSettingsKind, instanceId);
    const stored = settings?.state.features ?? {};
    const inherited = call.scope.type === 'org';
    const features: Record<string, MessageInitShape<typeof ResolvedBoolSchema>> = {};
    for (const name of [...KNOWN_FEATURES, ...Object.keys(stored).sort()]) {
      const value = stored[name];
      if (value === undefined) features[name] = { value: false, owner: toWireOwner(systemOwner) };
      else features[name] = inherited ? { value, owner: toWireOwner(instanceOwner(instanceId)) } : { value };
    }
    return {
      details: await toSettingsDetails(call.services.actors, instanceId, {
        sequence: settings?.meta.sequence ?? 0,
        changeDate: settings?.meta.changedAt ?? 0,
        owner: instanceOwner(instanceId),
      }),
      features,
    };
  },
});
