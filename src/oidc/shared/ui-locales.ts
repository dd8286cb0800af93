/**
 * The languages an instance offers to relying parties (`ui_locales_supported`, OIDC Discovery
 * 1.0 §3) and the login UI picks from: its restricted languages (language settings, issue 6),
 * or every supported language when none are restricted — in both cases only those the login UI
 * has a catalog for (src/i18n; English when none has). The resolver returns the same array while the instance's language
 * settings row is unchanged (discovery caches its body per array identity), and a new one at
 * once after a SetLanguages (the cache is keyed by the row's stream version).
 */
import { type ActorSystem, languageSettingsKind, offeredLanguages, resolveLanguageSettings, SUPPORTED_LANGUAGES } from '../../../actors/index.js';
import { CATALOG_LANGUAGES, withCatalogs } from '../../i18n/index.js';

/** Languages the login UI and the messages can be served in. */
export { SUPPORTED_LANGUAGES };

/** The languages an instance offers. */
export type UiLocalesResolver = (instanceId: string) => readonly string[] | Promise<readonly string[]>;

/** Every language with a catalog, for every instance (tests and nodes without language settings). */
export const allSupportedLanguages: UiLocalesResolver = () => CATALOG_LANGUAGES;

const MAX_CACHED = 10_000;

/** The instance's effective restricted languages (or all supported), cached by settings row version. */
export function createUiLocalesResolver(actors: ActorSystem): UiLocalesResolver {
  const cache = new Map<string, { version: number; languages: readonly string[] }>();
  return async (instanceId) => {
    const row = await actors.readRecord(instanceId, languageSettingsKind, instanceId);
    const version = row?.meta.version ?? 0;
    const hit = cache.get(instanceId);
    if (hit !== undefined && hit.version === version) return hit.languages;
    const languages = Object.freeze([...withCatalogs(offeredLanguages(resolveLanguageSettings(instanceId, row?.state)))]);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(instanceId, { version, languages });
    return languages;
  };
}
