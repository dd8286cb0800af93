/**
 * The languages an instance offers to relying parties (`ui_locales_supported`, OIDC Discovery
 * 1.0 §3) and the login UI picks from: its restricted languages (language settings, issue 6),
 * or every supported language when none are restricted — in both cases only those the login UI
 * has a catalog for (src/i18n; English when none has). The offered-languages resolver returns the
 * same array while the instance's language settings row is unchanged (discovery caches its body
 * per array identity), and a new one at once after a SetLanguages.
 */
import { type ActorSystem, type Held, languageSettingsKind, offeredLanguages, resolveLanguageSettings, streamAt, SUPPORTED_LANGUAGES } from '../../../actors/index.js';
import { CATALOG_LANGUAGES, withCatalogs } from '../../i18n/index.js';

/** Languages the login UI and the messages can be served in. */
export { SUPPORTED_LANGUAGES };

/** The languages an instance offers. */
export type UiLocalesResolver = (instanceId: string) => readonly string[] | Promise<readonly string[]>;

/** The login pages' languages of an instance: those offered, and its default language (the fallback when a browser asks for none of them). */
export interface PageLanguages {
  readonly offered: readonly string[];
  readonly defaultLanguage: string;
}

export type PageLanguagesResolver = (instanceId: string) => Promise<PageLanguages>;

/** Every language with a catalog, for every instance (tests and nodes without language settings). */
export const allSupportedLanguages: UiLocalesResolver = () => CATALOG_LANGUAGES;

const MAX_CACHED = 10_000;

const UI_LOCALES = 'ui locales';
const UI_LOCALES_TYPES = [languageSettingsKind.type];

/**
 * The instance's effective restricted languages (or all supported), held by the instance's state
 * (read-state.ts `hold`): synchronously once read, the same array until the language settings'
 * stream moves (this node's append, the change or worker feed), so discovery answers from memory.
 */
export function createUiLocalesResolver(actors: ActorSystem): UiLocalesResolver {
  const load = async (instanceId: string): Promise<Held<readonly string[]>> => {
    const row = await actors.readRecord(instanceId, languageSettingsKind, instanceId);
    const offered = Object.freeze([...withCatalogs(offeredLanguages(resolveLanguageSettings(instanceId, row?.state)))]);
    return { value: offered, streams: [streamAt(languageSettingsKind.type, instanceId, row)] };
  };
  return (instanceId) => actors.instanceState(instanceId).hold(UI_LOCALES, UI_LOCALES_TYPES, load);
}

/** The offered languages and the default language of an instance, cached by settings row version. */
export function createPageLanguagesResolver(actors: ActorSystem): PageLanguagesResolver {
  const cache = new Map<string, { version: number; languages: PageLanguages }>();
  return async (instanceId) => {
    const row = await actors.readRecord(instanceId, languageSettingsKind, instanceId);
    const version = row?.meta.version ?? 0;
    const hit = cache.get(instanceId);
    if (hit !== undefined && hit.version === version) return hit.languages;
    const settings = resolveLanguageSettings(instanceId, row?.state);
    const languages = Object.freeze({ offered: Object.freeze([...withCatalogs(offeredLanguages(settings))]), defaultLanguage: settings.defaultLanguage.value });
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(instanceId, { version, languages });
    return languages;
  };
}
