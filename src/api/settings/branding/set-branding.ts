/**
 * SetBranding: PATCH /settings/v3alpha/branding. Only present properties change, each a set
 * or `{"reset": true}`: colors SetStringShort, URLs SetStringLong, switches SetBool. The
 * shapes of colors and URLs are the actor's rule (400 naming `settings.<property>.set`).
 */
import {
  BRANDING_DEFAULTS,
  setBrandingSettings,
  validationFailed,
  type BrandingSettingsValues,
  type FieldViolation,
  type SettingsPatch,
} from '../../../../actors/index.js';
import { PlatformBrandingSettings, type SetBrandingSettings } from '../../../gen/platform/settings/branding/v3alpha/branding_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { contextAddress, contextOrgId, requireSettingsAccess } from '../shared/context.js';
import { parseSet, parseSetString, type SetProperty } from '../shared/set-values.js';

/** The Set type of each string property: colors are short, URLs long. */
const STRING_LIMITS = {
  primaryColor: 'short',
  backgroundColor: 'short',
  warnColor: 'short',
  fontColor: 'short',
  primaryColorDark: 'short',
  backgroundColorDark: 'short',
  warnColorDark: 'short',
  fontColorDark: 'short',
  logoUrl: 'long',
  fontUrl: 'long',
  logoUrlDark: 'long',
} as const;

type Key = keyof BrandingSettingsValues;

export const setBrandingRpc = defineRpc({
  method: PlatformBrandingSettings.method.setBranding,
  permission: 'authenticated',
  async handle(request, call) {
    await requireSettingsAccess(call, 'write');
    const patch = parsePatch(request.settings);
    const orgId = contextOrgId(call);
    const command = { ...(orgId === undefined ? {} : { orgId }), patch };
    const details = await call.services.actors.ask(contextAddress(call), setBrandingSettings, command, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});

function parsePatch(settings: SetBrandingSettings | undefined): SettingsPatch<BrandingSettingsValues> {
  const v: FieldViolation[] = [];
  const set: Record<string, unknown> = {};
  const reset: Key[] = [];
  for (const key of Object.keys(BRANDING_DEFAULTS) as Key[]) {
    const wire = (settings as Record<string, { property: SetProperty<unknown> } | undefined> | undefined)?.[key];
    if (wire === undefined) continue;
    const field = `settings.${key}`;
    const parsed =
      key === 'hideLoginNameSuffix' || key === 'disableWatermark'
        ? parseSet(wire.property, field, v)
        : parseSetString(wire.property as SetProperty<string>, STRING_LIMITS[key], field, v);
    if (parsed?.kind === 'set') set[key] = parsed.value;
    else if (parsed?.kind === 'reset') reset.push(key);
  }
  if (v.length > 0) throw validationFailed(v);
  return { set: set as Partial<BrandingSettingsValues>, reset };
}
