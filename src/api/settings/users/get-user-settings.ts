/**
 * GetUserSettings: GET /settings/v3alpha/users (`policy.read`). The instance's user policies:
 * password complexity, lockout, username uniqueness, hiding unknown login names (the defaults
 * until first set). With an organization context: the settings its users get — the
 * organization's own lockout thresholds where it set them (details name the organization as owner).
 */
import { effectiveMaxOtpAttempts, effectiveMaxPasswordAttempts, instanceOwner, orgLockoutKind, orgOwner, userSettingsKind, userSettingsOf } from '../../../../actors/index.js';
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
    const orgLockout = call.scope.type === 'org' ? await call.services.actors.readRecord(instanceId, orgLockoutKind, call.scope.orgId) : undefined;
    const source = orgLockout === undefined ? { meta: record?.meta, owner: instanceOwner(instanceId) } : { meta: orgLockout.meta, owner: orgOwner(orgLockout.id) };
    return {
      details: await toSettingsDetails(call.services.actors, instanceId, { sequence: source.meta?.sequence ?? 0, changeDate: source.meta?.changedAt ?? 0, owner: source.owner }),
      settings: {
        passwordComplexity: { ...settings.passwordComplexity },
        maxPasswordAttempts: effectiveMaxPasswordAttempts(settings, orgLockout),
        usernameUniquePerInstance: settings.usernameUniquePerInstance,
        ignoreUnknownUsernames: settings.ignoreUnknownUsernames,
        maxOtpAttempts: effectiveMaxOtpAttempts(settings, orgLockout),
      },
    };
  },
});
