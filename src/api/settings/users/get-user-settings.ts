/**
 * GetUserSettings: GET /settings/v3alpha/users (`policy.read`). The instance's user policies:
 * password complexity, lockout, username uniqueness, hiding unknown login names (the defaults
 * until first set).
 */
import { instanceOwner, userSettingsKind, userSettingsOf } from '../../../../actors/index.js';
import { PlatformUserSettings } from '../../../gen/platform/settings/user/v3alpha/user_settings_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetails } from '../../shared/settings.js';

export const getUserSettingsRpc = defineRpc({
  method: PlatformUserSettings.method.getUserSettings,
  permission: 'policy.read',
  async handle(_request, call) {
    const instanceId = call.instance.id;
    const record = await call.services.actors.readRecord(instanceId, userSettingsKind, instanceId);
    const settings = userSettingsOf(record);
    return {
      details: await toSettingsDetails(call.services.actors, instanceId, { sequence: record?.meta.sequence ?? 0, changeDate: record?.meta.changedAt ?? 0, owner: instanceOwner(instanceId) }),
      settings: {
        passwordComplexity: { ...settings.passwordComplexity },
        maxPasswordAttempts: settings.maxPasswordAttempts,
        usernameUniquePerInstance: settings.usernameUniquePerInstance,
        ignoreUnknownUsernames: settings.ignoreUnknownUsernames,
      },
    };
  },
});
