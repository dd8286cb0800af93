/**
 * Language settings (seed 000 "Language settings"): one row per context (the instance id or an
 * organization id) with the properties that context sets; resolution walks org → instance →
 * system defaults (default language `en`, no restriction). Supported languages are fixed.
 */
import { languageSettingsEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { instanceOwner, orgOwner, systemOwner } from '../kernel/owner.js';
import { applySettingsPatch, resolveSetting, type ResolvedValue, type SettingsLayer, type SettingsPatch } from '../kernel/settings-resolver.js';

/** Languages the login UI and the messages can be served in (owner: the system). */
export const SUPPORTED_LANGUAGES: readonly string[] = Object.freeze([
  'bg', 'cs', 'de', 'en', 'es', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'mk', 'nl', 'pl', 'pt', 'ro', 'ru', 'sv', 'tr', 'zh',
]);

export interface LanguageSettingsValues {
  readonly defaultLanguage: string;
  /** Empty never stored: an empty list is a reset. */
  readonly restrictedLanguages: readonly string[];
}

export type LanguageSettings = Partial<LanguageSettingsValues>;

const SYSTEM_DEFAULTS: LanguageSettingsValues = { defaultLanguage: 'en', restrictedLanguages: [] };

export type LanguageSettingsEvent = {
  type: 'instance.settings.language.set' | 'org.settings.language.set';
  payload: SettingsPatch<LanguageSettingsValues>;
};

/** Stream type `language_settings`, table `language_settings`; id: the instance id or the org id. */
export const languageSettingsKind: AggregateKind<LanguageSettings, LanguageSettingsEvent, 'language_settings'> = {
  type: 'language_settings',
  table: 'language_settings',
  events: languageSettingsEvents,
  evolve(state, e) {
    if (e.type === 'instance.settings.language.set' || e.type === 'org.settings.language.set') return applySettingsPatch(state, e.payload);
    return state;
  },
};

export interface ResolvedLanguageSettings {
  readonly defaultLanguage: ResolvedValue<string>;
  readonly restrictedLanguages: ResolvedValue<readonly string[]>;
  readonly supportedLanguages: ResolvedValue<readonly string[]>;
}

/** Resolves the settings of the instance (`org` undefined) or of an organization. */
export function resolveLanguageSettings(
  instanceId: string,
  instance: LanguageSettings | undefined,
  org?: { readonly orgId: string; readonly values: LanguageSettings | undefined },
): ResolvedLanguageSettings {
  const layers: SettingsLayer<LanguageSettingsValues>[] = [
    ...(org === undefined ? [] : [{ owner: orgOwner(org.orgId), values: org.values }]),
    { owner: instanceOwner(instanceId), values: instance },
    { owner: systemOwner, values: SYSTEM_DEFAULTS },
  ];
  return {
    defaultLanguage: resolveSetting(layers, 'defaultLanguage') ?? { value: SYSTEM_DEFAULTS.defaultLanguage, owner: systemOwner },
    restrictedLanguages: resolveSetting(layers, 'restrictedLanguages') ?? { value: [], owner: systemOwner },
    supportedLanguages: { value: SUPPORTED_LANGUAGES, owner: systemOwner },
  };
}

/** The languages a context offers: its effective restricted languages, or every supported one. */
export function offeredLanguages(settings: ResolvedLanguageSettings): readonly string[] {
  const restricted = settings.restrictedLanguages.value;
  return restricted.length > 0 ? restricted : SUPPORTED_LANGUAGES;
}

