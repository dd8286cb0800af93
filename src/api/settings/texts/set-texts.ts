/**
 * SetTexts: PATCH /settings/v3alpha/texts/{language}. Each named key is set (SetStringLong,
 * at most 2048 characters) or reset to the parent's text; keys must be keys of the login
 * catalog (400 naming `settings.texts.<key>`); other keys keep their value.
 */
import { setTextSettings, validationFailed, type FieldViolation, type SettingsPatch, type TextSettingsValues } from '../../../../actors/index.js';
import { PlatformTextSettings, type SetTextSettings } from '../../../gen/platform/settings/text/v3alpha/text_service_pb.js';
import { isMessageKey } from '../../../i18n/index.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { contextAddress, contextOrgId, requireSettingsAccess } from '../shared/context.js';
import { parseSetString } from '../shared/set-values.js';
import { parseLanguage } from './shared.js';

export const setTextsRpc = defineRpc({
  method: PlatformTextSettings.method.setTexts,
  permission: 'authenticated',
  async handle(request, call) {
    await requireSettingsAccess(call, 'write');
    const language = parseLanguage(request.language);
    const patch = parsePatch(request.settings);
    const orgId = contextOrgId(call);
    const command = { ...(orgId === undefined ? {} : { orgId }), language, patch };
    const details = await call.services.actors.ask(contextAddress(call), setTextSettings, command, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});

function parsePatch(settings: SetTextSettings | undefined): SettingsPatch<TextSettingsValues> {
  const v: FieldViolation[] = [];
  const set: Record<string, string> = {};
  const reset: string[] = [];
  for (const [key, property] of Object.entries(settings?.texts ?? {})) {
    const field = `settings.texts.${key}`;
    if (!isMessageKey(key)) {
      v.push({ field, description: `${key} is not a key of the login texts` });
      continue;
    }
    const parsed = parseSetString(property.property, 'long', field, v);
    if (parsed?.kind === 'set') set[key] = parsed.value;
    else if (parsed?.kind === 'reset') reset.push(key);
  }
  if (v.length > 0) throw validationFailed(v);
  return { set, reset };
}
