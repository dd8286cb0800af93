/**
 * Login text settings (issue 6): per context (the instance or an organization) and language,
 * the login UI texts that context sets, keyed by message key. Resolution walks
 * org → instance → the system's built-in catalog, key by key, so an organization overrides
 * some texts and inherits the rest. Which keys exist is the login catalog's business (the
 * edge checks them); the domain only stores and resolves strings.
 */
import { textSettingsEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { instanceOwner, orgOwner, systemOwner } from '../kernel/owner.js';
import { applySettingsPatch, resolveSetting, type ResolvedValue, type SettingsLayer, type SettingsPatch } from '../kernel/settings-resolver.js';

/** Message key → text, as one context sets them for one language. */
export type TextSettingsValues = Readonly<Record<string, string>>;
export type TextSettings = Partial<TextSettingsValues>;

export type TextSettingsEvent = {
  type: 'instance.settings.text.set' | 'org.settings.text.set';
  payload: SettingsPatch<TextSettingsValues> & { language: string };
};

/** Row id of a context's texts in one language: `<instance id | org id>:<language>`. */
export function textSettingsId(contextId: string, language: string): string {
  return `${contextId}:${language}`;
}

/** Stream type `text_settings`, table `text_settings`; id: textSettingsId(...). */
export const textSettingsKind: AggregateKind<TextSettings, TextSettingsEvent, 'text_settings'> = {
  type: 'text_settings',
  table: 'text_settings',
  events: textSettingsEvents,
  evolve(state, e) {
    if (e.type === 'instance.settings.text.set' || e.type === 'org.settings.text.set') return applySettingsPatch(state, e.payload);
    return state;
  },
};

/**
 * Resolves `keys` for the instance (`org` undefined) or an organization; `system` holds the
 * built-in texts (the catalog of the language). A key no layer sets resolves to ''.
 */
export function resolveTextSettings(
  keys: readonly string[],
  system: TextSettingsValues,
  instance: { readonly instanceId: string; readonly values: TextSettings | undefined },
  org?: { readonly orgId: string; readonly values: TextSettings | undefined },
): Record<string, ResolvedValue<string>> {
  const layers: SettingsLayer<TextSettingsValues>[] = [
    ...(org === undefined ? [] : [{ owner: orgOwner(org.orgId), values: org.values }]),
    { owner: instanceOwner(instance.instanceId), values: instance.values },
    { owner: systemOwner, values: system },
  ];
  const resolved: Record<string, ResolvedValue<string>> = {};
  for (const key of keys) resolved[key] = resolveSetting(layers, key) ?? { value: '', owner: systemOwner };
  return resolved;
}
