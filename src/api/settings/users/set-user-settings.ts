/**
 * SetUserSettings: PATCH /settings/v3alpha/users (`iam.policy.write`). Partial: absent fields
 * stay unchanged. Username uniqueness applies to usernames claimed from then on.
 */
import { z } from 'zod';
import { setUserSettings, type SetUserSettings } from '../../../../actors/index.js';
import { PlatformUserSettings } from '../../../gen/platform/settings/user/v3alpha/user_settings_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { parseWith } from '../../shared/validate.js';

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
      maxPasswordAttempts: z.number().int().max(1000, 'must be at most 1000').optional(),
      usernameUniquePerInstance: z.boolean().optional(),
      ignoreUnknownUsernames: z.boolean().optional(),
    })
    .optional(),
});

export const setUserSettingsRpc = defineRpc({
  method: PlatformUserSettings.method.setUserSettings,
  permission: 'iam.policy.write',
  async handle(request, call) {
    const { settings } = parseWith(input, request);
    const complexity = settings?.passwordComplexity;
    const command: SetUserSettings = {
      ...(complexity === undefined ? {} : { passwordComplexity: Object.fromEntries(Object.entries(complexity).filter(([, v]) => v !== undefined)) }),
      ...(settings?.maxPasswordAttempts === undefined ? {} : { maxPasswordAttempts: settings.maxPasswordAttempts }),
      ...(settings?.usernameUniquePerInstance === undefined ? {} : { usernameUniquePerInstance: settings.usernameUniquePerInstance }),
      ...(settings?.ignoreUnknownUsernames === undefined ? {} : { ignoreUnknownUsernames: settings.ignoreUnknownUsernames }),
    };
    const details = await call.services.actors.ask({ kind: 'instance', instanceId: call.instance.id }, setUserSettings, command, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});
