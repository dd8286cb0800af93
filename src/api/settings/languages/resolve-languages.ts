/**
 * ResolveLanguages: GET /settings/v3alpha/languages. The context's default language,
 * restricted and supported languages; an inherited value names its owner (supported: always
 * the system). Open to any authenticated caller of the instance (the seed's permission column,
 * reference facts §7.2): clients need the languages to render their own UI.
 */
import type { ResolvedValue } from '../../../../actors/index.js';
import { PlatformLanguageSettings } from '../../../gen/platform/settings/language/v3alpha/language_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toWireOwner } from '../../shared/convert.js';
import { requireFeature } from '../../../query/features.js';
import { readLanguageSettings, toContextDetails } from './shared.js';

export const resolveLanguagesRpc = defineRpc({
  method: PlatformLanguageSettings.method.resolveLanguages,
  permission: 'authenticated',
  async handle(_request, call) {
    await requireFeature(call.services.actors, call.instance.id, 'multitenancy_settings');
    const { own, resolved } = await readLanguageSettings(call);
    return {
      details: await toContextDetails(call, own),
      settings: {
        defaultLanguage: withOwner(resolved.defaultLanguage, resolved.defaultLanguage.value),
        restrictedLanguages: withOwner(resolved.restrictedLanguages, toLanguages(resolved.restrictedLanguages.value)),
        supportedLanguages: withOwner(resolved.supportedLanguages, toLanguages(resolved.supportedLanguages.value)),
      },
    };
  },
});

function toLanguages(keys: readonly string[]): { key: string }[] {
  return keys.map((key) => ({ key }));
}

function withOwner<V, W>(resolved: ResolvedValue<V>, value: W) {
  return resolved.owner === undefined ? { value } : { value, owner: toWireOwner(resolved.owner) };
}
