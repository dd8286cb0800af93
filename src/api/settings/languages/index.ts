/** PlatformLanguageSettings: every RPC definition of the service. */
import { resolveLanguagesRpc } from './resolve-languages.js';
import { setLanguagesRpc } from './set-languages.js';

export const languageSettingsRpcs = [setLanguagesRpc, resolveLanguagesRpc] as const;
