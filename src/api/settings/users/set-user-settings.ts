/**
 * SetUserSettings: PATCH /settings/v3alpha/users (`iam.policy.write`). Partial: absent fields
 * stay unchanged. Username uniqueness applies to usernames claimed from then on. With an
 * organization context (`ctx.orgId`) only the lockout thresholds (failed passwords, failed OTP
 * checks) are the organization's own (`policy.write` in that organization); the other policies
 * are the instance's alone.
 */
import { z } from 'zod';
import { setOrgLockout, setUserSettings, validationFailed, type SetUserSettings } from '../../../../actors/index.js';
import { PlatformUserSettings } from '../../../gen/platform/settings/user/v3alpha/user_settings_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { parseWith } from '../../shared/validate.js';

/** Failed password checks before a user is locked (also the export document's `lockoutPolicy`). */
export const maxPasswordAttempts = z.number().int().min(0, 'must be 0 (never lock) or more').max(1000, 'must be at most 1000');

const input = z.object({
  settings: z
    .object({
      passwordComplexity: z
        .object({
          minLength: z.number().int().min(1, 'must be at least 1').max(256, 'must be at most 256').optional(),
          hasUppercase: z.boolean().optional(),
          hasLowercase: z.boolean().optional(),
          hasNumber: z.boolean().optional(),
          hasSymbol: z.boolean().optional(),
        })
        .optional(),
      maxPasswordAttempts: maxPasswordAttempts.optional(),
      maxOtpAttempts: maxPasswordAttempts.optional(),
      usernameUniquePerInstance: z.boolean().optional(),
      ignoreUnknownUsernames: z.boolean().optional(),
    })
    .optional(),
});

export const setUserSettingsRpc = defineRpc({
  method: PlatformUserSettings.method.setUserSettings,
  // Checked in the handler: `iam.policy.write` for the instance, `policy.write` in an organization context.
  permission: 'authenticated',
  async handle(request, call) {
    if (call.scope.type === 'org') await call.require('policy.write', call.scope.orgId);
    else await call.require('iam.policy.write');
    const { settings } = parseWith(input, request);
    if (call.scope.type === 'org') {
      const orgId = call.scope.orgId;
      const instanceOnly = (['passwordComplexity', 'usernameUniquePerInstance', 'ignoreUnknownUsernames'] as const).find((field) => settings?.[field] !== undefined);
      if (instanceOnly !== undefined) throw validationFailed([{ field: `settings.${instanceOnly}`, description: 'is an instance setting: only maxPasswordAttempts and maxOtpAttempts can be set for an organization' }]);
      if (settings?.maxPasswordAttempts === undefined && settings?.maxOtpAttempts === undefined) {
        throw validationFailed([{ field: 'settings.maxPasswordAttempts', description: 'maxPasswordAttempts or maxOtpAttempts is required with an organization context' }]);
      }
      const lockout = {
        orgId,
        ...(settings.maxPasswordAttempts === undefined ? {} : { maxPasswordAttempts: settings.maxPasswordAttempts }),
        ...(settings.maxOtpAttempts === undefined ? {} : { maxOtpAttempts: settings.maxOtpAttempts }),
      };
      const details = await call.services.actors.ask({ kind: 'org', instanceId: call.instance.id, orgId }, setOrgLockout, lockout, { creator: call.caller.userId });
      return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
    }
    const complexity = settings?.passwordComplexity;
    const command: SetUserSettings = {
      ...(complexity === undefined ? {} : { passwordComplexity: Object.fromEntries(Object.entries(complexity).filter(([, v]) => v !== undefined)) }),
      ...(settings?.maxPasswordAttempts === undefined ? {} : { maxPasswordAttempts: settings.maxPasswordAttempts }),
      ...(settings?.maxOtpAttempts === undefined ? {} : { maxOtpAttempts: settings.maxOtpAttempts }),
      ...(settings?.usernameUniquePerInstance === undefined ? {} : { usernameUniquePerInstance: settings.usernameUniquePerInstance }),
      ...(settings?.ignoreUnknownUsernames === undefined ? {} : { ignoreUnknownUsernames: settings.ignoreUnknownUsernames }),
    };
    const details = await call.services.actors.ask({ kind: 'instance', instanceId: call.instance.id }, setUserSettings, command, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});
