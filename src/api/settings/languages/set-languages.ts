/**
 * SetLanguages: PATCH /settings/v3alpha/languages. Only present fields change; an empty
 * `defaultLanguage.key` or an empty `restrictedLanguages.languages` resets the property to the
 * parent value (reference facts §1.5). Keys are two lowercase letters (else 400 naming the
 * field); supported keys and default ⊆ restricted are the actor's rules.
 */
import {
  type FieldViolation,
  type LanguageSettingsValues,
  type SettingsPatch,
  setLanguageSettings,
  validationFailed,
} from '../../../../actors/index.js';
import { PlatformLanguageSettings, type SetLanguageSettings } from '../../../gen/platform/settings/language/v3alpha/language_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { requireLanguageAccess } from './shared.js';

const KEY = /^[a-z]{2}$/;
const MAX_RESTRICTED = 100;

export const setLanguagesRpc = defineRpc({
  method: PlatformLanguageSettings.method.setLanguages,
  permission: 'authenticated',
  async handle(request, call) {
    await requireLanguageAccess(call, 'write');
    const patch = parsePatch(request.settings);
    const orgId = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const address = orgId === undefined ? { kind: 'instance' as const, instanceId: call.instance.id } : { kind: 'org' as const, instanceId: call.instance.id, orgId };
    const details = await call.services.actors.ask(address, setLanguageSettings, { ...(orgId === undefined ? {} : { orgId }), patch }, { creator: call.caller.userId });
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});

function parsePatch(settings: SetLanguageSettings | undefined): SettingsPatch<LanguageSettingsValues> {
  const v: FieldViolation[] = [];
  const set: { -readonly [K in keyof LanguageSettingsValues]?: LanguageSettingsValues[K] } = {};
  const reset: (keyof LanguageSettingsValues)[] = [];
  const def = settings?.defaultLanguage;
  if (def !== undefined) {
    if (def.key === '') reset.push('defaultLanguage');
    else if (!KEY.test(def.key)) v.push({ field: 'settings.defaultLanguage.key', description: 'must be two lowercase letters' });
    else set.defaultLanguage = def.key;
  }
  const restricted = settings?.restrictedLanguages;
  if (restricted !== undefined) {
    if (restricted.languages.length === 0) reset.push('restrictedLanguages');
    if (restricted.languages.length > MAX_RESTRICTED) v.push({ field: 'settings.restrictedLanguages.languages', description: `at most ${MAX_RESTRICTED} languages` });
    restricted.languages.forEach((language, i) => {
      if (!KEY.test(language.key)) v.push({ field: `settings.restrictedLanguages.languages[${i}].key`, description: 'must be two lowercase letters' });
    });
    if (restricted.languages.length > 0) set.restrictedLanguages = [...new Set(restricted.languages.map((l) => l.key))];
  }
  if (v.length > 0) throw validationFailed(v);
  return { set, reset };
}
