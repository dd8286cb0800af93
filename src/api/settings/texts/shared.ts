/**
 * What both text settings calls share: the language path parameter (a supported language,
 * else 400 naming `language`) and the resolution of a context's texts in one language,
 * org → instance → the built-in catalog.
 */
import { resolveTextSettings, SUPPORTED_LANGUAGES, textSettingsId, textSettingsKind, validationFailed, type AggregateRecord, type ResolvedValue, type TextSettings } from '../../../../actors/index.js';
import { catalogFor, MESSAGE_KEYS } from '../../../i18n/index.js';
import type { CallContext } from '../../call-context.js';
import { contextOrgId } from '../shared/context.js';

/** The request's language, checked: two lowercase letters and supported. */
export function parseLanguage(language: string): string {
  if (!SUPPORTED_LANGUAGES.includes(language)) {
    throw validationFailed([{ field: 'language', description: `must be one of the supported languages (${SUPPORTED_LANGUAGES.join(', ')})` }], 'language.unsupported');
  }
  return language;
}

export interface ContextTexts {
  readonly own: AggregateRecord<TextSettings> | undefined;
  readonly resolved: Record<string, ResolvedValue<string>>;
}

/** The context's own row and every catalog key resolved for `language`. */
export async function readTextSettings(call: CallContext, language: string): Promise<ContextTexts> {
  const actors = call.services.actors;
  const instanceId = call.instance.id;
  const system = catalogFor(language);
  const instance = await actors.readRecord(instanceId, textSettingsKind, textSettingsId(instanceId, language));
  const orgId = contextOrgId(call);
  if (orgId === undefined) return { own: instance, resolved: resolveTextSettings(MESSAGE_KEYS, system, { instanceId, values: instance?.state }) };
  const org = await actors.readRecord(instanceId, textSettingsKind, textSettingsId(orgId, language));
  return { own: org, resolved: resolveTextSettings(MESSAGE_KEYS, system, { instanceId, values: instance?.state }, { orgId, values: org?.state }) };
}
