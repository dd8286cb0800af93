/**
 * GetLoginSettings: GET /settings/v3alpha/login (`policy.read`). The login policy of the
 * context: with an organization context the organization's own policy when it set one, else
 * the instance's; details name the owner of the policy returned.
 */
import { PlatformLoginSettings } from '../../../gen/platform/settings/login/v3alpha/login_settings_service_pb.js';
import { loginSettingsFor } from '../../../query/login-settings.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetails } from '../../shared/settings.js';
import { contextOrgId } from '../shared/context.js';
import { toWireLoginSettings } from './shared.js';

export const getLoginSettingsRpc = defineRpc({
  method: PlatformLoginSettings.method.getLoginSettings,
  permission: 'policy.read',
  async handle(_request, call) {
    const instanceId = call.instance.id;
    const effective = await loginSettingsFor(call.services.actors, instanceId, contextOrgId(call), { fresh: true });
    const meta = effective.record?.meta;
    return {
      details: await toSettingsDetails(call.services.actors, instanceId, { sequence: meta?.sequence ?? 0, changeDate: meta?.changedAt ?? 0, owner: effective.owner }),
      settings: toWireLoginSettings(effective.settings),
    };
  },
});
