/**
 * GetRateLimitSettings: GET /settings/v3alpha/rate_limits (`iam.policy.read`). Every limit the
 * instance applies: its own value (no owner), or the node default (TESSERA_RATE_LIMIT_*, owner
 * the system). Instance settings: an organization context is refused (400 naming ctx).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { instanceOwner, instanceSettingsKind, systemOwner } from '../../../../actors/index.js';
import type { ResolvedStringSchema } from '../../../gen/platform/settings/object/v3alpha/object_pb.js';
import { PlatformRateLimitSettings } from '../../../gen/platform/settings/rate_limit/v3alpha/rate_limit_service_pb.js';
import { formatLimit, LIMIT_SETTINGS, nodeLimitDefaults, type LimitSetting } from '../../../http/rate-limits.js';
import { defineRpc } from '../../invoker.js';
import { toWireOwner } from '../../shared/convert.js';
import { toSettingsDetails } from '../../shared/settings.js';
import { refuseOrgContext } from './shared.js';

export const getRateLimitSettingsRpc = defineRpc({
  method: PlatformRateLimitSettings.method.getRateLimitSettings,
  permission: 'iam.policy.read',
  async handle(_request, call) {
    refuseOrgContext(call);
    const instanceId = call.instance.id;
    const settings = await call.services.actors.readRecord(instanceId, instanceSettingsKind, instanceId);
    const own = settings?.state.rateLimits ?? {};
    const defaults = nodeLimitDefaults(call.services.config);
    const limits = {} as Record<LimitSetting, MessageInitShape<typeof ResolvedStringSchema>>;
    for (const name of LIMIT_SETTINGS) {
      const value = own[name];
      limits[name] = value === undefined ? { value: formatLimit(defaults[name]), owner: toWireOwner(systemOwner) } : { value };
    }
    return {
      details: await toSettingsDetails(call.services.actors, instanceId, { sequence: settings?.meta.sequence ?? 0, changeDate: settings?.meta.changedAt ?? 0, owner: instanceOwner(instanceId) }),
      limits,
    };
  },
});
