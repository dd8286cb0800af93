/**
 * The languages an instance offers to relying parties (`ui_locales_supported`, OIDC Discovery
 * 1.0 §3): its restricted languages, or every supported language when none are restricted.
 * TODO(issue 6): language settings do not exist yet; replace `allSupportedLanguages` with a
 * resolver of the instance's restricted languages (return the same array while they are
 * unchanged: discovery caches its body per array identity).
 */

/** Languages the login UI and the messages can be served in. */
export const SUPPORTED_LANGUAGES: readonly string[] = Object.freeze([
  'bg', 'cs', 'de', 'en', 'es', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'mk', 'nl', 'pl', 'pt', 'ro', 'ru', 'sv', 'tr', 'zh',
]);

/** The languages an instance offers. */
export type UiLocalesResolver = (instanceId: string) => readonly string[] | Promise<readonly string[]>;

/** Every supported language, for every instance (until language settings exist). */
export const allSupportedLanguages: UiLocalesResolver = () => SUPPORTED_LANGUAGES;
