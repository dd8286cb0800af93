/**
 * SetLoginSettings: PATCH /settings/v3alpha/login (`iam.policy.write`; with an organization
 * context `policy.write` in it). Partial: absent fields stay unchanged. An organization's first
 * change gives it its own policy (the instance's with the change). ResetLoginSettings: DELETE
 * with an organization context, the organization inherits the instance's policy again.
 */
import { z } from 'zod';
import { resetLoginSettings, setLoginSettings, validationFailed, type LoginSettings } from '../../../../actors/index.js';
import { PasswordlessType, PlatformLoginSettings } from '../../../gen/platform/settings/login/v3alpha/login_settings_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { parseWith } from '../../shared/validate.js';
import { contextAddress, contextOrgId } from '../shared/context.js';
import { multiFactorFromWire, secondFactorFromWire } from './shared.js';

const unique = <T>(list: readonly T[]) => new Set(list).size === list.length;

const secondFactors = z
  .array(z.number().int().transform((v, ctx) => secondFactorFromWire(v) ?? (ctx.addIssue({ code: 'custom', message: 'must be a defined second factor type' }), z.NEVER)))
  .max(10)
  .refine(unique, 'must not list a factor twice');
const multiFactors = z
  .array(z.number().int().transform((v, ctx) => multiFactorFromWire(v) ?? (ctx.addIssue({ code: 'custom', message: 'must be a defined multi factor type' }), z.NEVER)))
  .max(10)
  .refine(unique, 'must not list a factor twice');

const input = z.object({
  settings: z
    .object({
      allowUsernamePassword: z.boolean().optional(),
      allowRegister: z.boolean().optional(),
      allowExternalIdp: z.boolean().optional(),
      forceMfa: z.boolean().optional(),
      forceMfaLocalOnly: z.boolean().optional(),
      hidePasswordReset: z.boolean().optional(),
      secondFactors: z.object({ value: secondFactors }).optional(),
      multiFactors: z.object({ value: multiFactors }).optional(),
      passwordlessType: z.union([z.literal(PasswordlessType.NOT_ALLOWED), z.literal(PasswordlessType.ALLOWED)], { message: 'must be PASSWORDLESS_TYPE_ALLOWED or PASSWORDLESS_TYPE_NOT_ALLOWED' }).optional(),
      emailVerificationRequired: z.boolean().optional(),
      phoneVerificationRequired: z.boolean().optional(),
    })
    .optional(),
});

async function requireWrite(call: CallContext): Promise<void> {
  const orgId = contextOrgId(call);
  if (orgId !== undefined) await call.require('policy.write', orgId);
  else await call.require('iam.policy.write');
}

export const setLoginSettingsRpc = defineRpc({
  method: PlatformLoginSettings.method.setLoginSettings,
  // Checked in the handler: `iam.policy.write` for the instance, `policy.write` in an organization context.
  permission: 'authenticated',
  async handle(request, call) {
    await requireWrite(call);
    const s = parseWith(input, request).settings ?? {};
    const settings: Partial<LoginSettings> = {
      ...(s.allowUsernamePassword === undefined ? {} : { allowUsernamePassword: s.allowUsernamePassword }),
      ...(s.allowRegister === undefined ? {} : { allowRegister: s.allowRegister }),
      ...(s.allowExternalIdp === undefined ? {} : { allowExternalIdp: s.allowExternalIdp }),
      ...(s.forceMfa === undefined ? {} : { forceMfa: s.forceMfa }),
      ...(s.forceMfaLocalOnly === undefined ? {} : { forceMfaLocalOnly: s.forceMfaLocalOnly }),
      ...(s.hidePasswordReset === undefined ? {} : { hidePasswordReset: s.hidePasswordReset }),
      ...(s.secondFactors === undefined ? {} : { secondFactors: s.secondFactors.value }),
      ...(s.multiFactors === undefined ? {} : { multiFactors: s.multiFactors.value }),
      ...(s.passwordlessType === undefined ? {} : { passwordlessAllowed: s.passwordlessType === PasswordlessType.ALLOWED }),
      ...(s.emailVerificationRequired === undefined ? {} : { emailVerificationRequired: s.emailVerificationRequired }),
      ...(s.phoneVerificationRequired === undefined ? {} : { phoneVerificationRequired: s.phoneVerificationRequired }),
    };
    const orgId = contextOrgId(call);
    const details = await call.services.actors.ask(contextAddress(call), setLoginSettings, { ...(orgId === undefined ? {} : { orgId }), settings }, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});

export const resetLoginSettingsRpc = defineRpc({
  method: PlatformLoginSettings.method.resetLoginSettings,
  permission: 'authenticated',
  async handle(_request, call) {
    await requireWrite(call);
    const orgId = contextOrgId(call);
    if (orgId === undefined) throw validationFailed([{ field: 'ctx.orgId', description: 'is required: only an organization resets its login settings to the instance’s' }]);
    const details = await call.services.actors.ask(contextAddress(call), resetLoginSettings, { orgId }, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});
