/**
 * Branding settings of the login UI (issue 6): colors, logo and font URLs, and two switches,
 * one row per context (the instance id or an organization id), resolved org → instance →
 * system defaults. The values end up in the login page's CSS and markup, so the domain only
 * accepts strict shapes: `#rgb` / `#rrggbb` colors and https URLs (http only for localhost).
 */
import { brandingSettingsEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { FieldViolation } from '../kernel/errors.js';
import { instanceOwner, orgOwner, systemOwner } from '../kernel/owner.js';
import { applySettingsPatch, resolveSetting, type ResolvedValue, type SettingsLayer, type SettingsPatch } from '../kernel/settings-resolver.js';

export interface BrandingSettingsValues {
  readonly primaryColor: string;
  readonly backgroundColor: string;
  readonly warnColor: string;
  readonly fontColor: string;
  readonly logoUrl: string;
  readonly fontUrl: string;
  readonly hideLoginNameSuffix: boolean;
  readonly disableWatermark: boolean;
  /** Dark scheme variants; '' means "as in the light scheme". */
  readonly primaryColorDark: string;
  readonly backgroundColorDark: string;
  readonly warnColorDark: string;
  readonly fontColorDark: string;
  readonly logoUrlDark: string;
}

export type BrandingSettings = Partial<BrandingSettingsValues>;

export const BRANDING_COLOR_PROPERTIES = ['primaryColor', 'backgroundColor', 'warnColor', 'fontColor', 'primaryColorDark', 'backgroundColorDark', 'warnColorDark', 'fontColorDark'] as const;
export const BRANDING_URL_PROPERTIES = ['logoUrl', 'fontUrl', 'logoUrlDark'] as const;
export const BRANDING_BOOL_PROPERTIES = ['hideLoginNameSuffix', 'disableWatermark'] as const;

/** The system's branding: the login UI's built-in look, no logo, the watermark shown. */
export const BRANDING_DEFAULTS: BrandingSettingsValues = Object.freeze({
  primaryColor: '#1a56db',
  backgroundColor: '#ffffff',
  warnColor: '#b00020',
  fontColor: '#111111',
  logoUrl: '',
  fontUrl: '',
  hideLoginNameSuffix: false,
  disableWatermark: false,
  primaryColorDark: '',
  backgroundColorDark: '',
  warnColorDark: '',
  fontColorDark: '',
  logoUrlDark: '',
});

export type BrandingSettingsEvent = {
  type: 'instance.settings.branding.set' | 'org.settings.branding.set';
  payload: SettingsPatch<BrandingSettingsValues>;
};

/** Stream type `branding_settings`, table `branding_settings`; id: the instance id or the org id. */
export const brandingSettingsKind: AggregateKind<BrandingSettings, BrandingSettingsEvent, 'branding_settings'> = {
  type: 'branding_settings',
  table: 'branding_settings',
  events: brandingSettingsEvents,
  evolve(state, e) {
    if (e.type === 'instance.settings.branding.set' || e.type === 'org.settings.branding.set') return applySettingsPatch(state, e.payload);
    return state;
  },
};

export type ResolvedBrandingSettings = { readonly [K in keyof BrandingSettingsValues]: ResolvedValue<BrandingSettingsValues[K]> };

/** Resolves the branding of the instance (`org` undefined) or of an organization. */
export function resolveBrandingSettings(
  instanceId: string,
  instance: BrandingSettings | undefined,
  org?: { readonly orgId: string; readonly values: BrandingSettings | undefined },
): ResolvedBrandingSettings {
  const layers: SettingsLayer<BrandingSettingsValues>[] = [
    ...(org === undefined ? [] : [{ owner: orgOwner(org.orgId), values: org.values }]),
    { owner: instanceOwner(instanceId), values: instance },
    { owner: systemOwner, values: BRANDING_DEFAULTS },
  ];
  const resolved: Partial<Record<keyof BrandingSettingsValues, ResolvedValue<unknown>>> = {};
  for (const key of Object.keys(BRANDING_DEFAULTS) as (keyof BrandingSettingsValues)[]) {
    resolved[key] = resolveSetting(layers, key) ?? { value: BRANDING_DEFAULTS[key], owner: systemOwner };
  }
  return resolved as ResolvedBrandingSettings;
}

const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for `#rgb` / `#rrggbb`. */
export function isBrandingColor(value: string): boolean {
  return COLOR.test(value);
}

/** True for an absolute https URL, or http on localhost; no credentials in it. */
export function isBrandingUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
}

const KNOWN_PROPERTIES: ReadonlySet<string> = new Set([...BRANDING_COLOR_PROPERTIES, ...BRANDING_URL_PROPERTIES, ...BRANDING_BOOL_PROPERTIES]);

/** Shape violations of the values a patch sets (fields in JSON names under `settings`). */
export function brandingViolations(set: BrandingSettings): FieldViolation[] {
  const v: FieldViolation[] = [];
  // Patches also come from import documents, not only from the typed API message.
  for (const key of Object.keys(set)) if (!KNOWN_PROPERTIES.has(key)) v.push({ field: `settings.${key}`, description: 'not a branding property' });
  for (const key of BRANDING_BOOL_PROPERTIES) {
    const value: unknown = set[key];
    if (value !== undefined && typeof value !== 'boolean') v.push({ field: `settings.${key}.set`, description: 'must be true or false' });
  }
  for (const key of [...BRANDING_COLOR_PROPERTIES, ...BRANDING_URL_PROPERTIES]) {
    const value: unknown = set[key];
    if (value !== undefined && typeof value !== 'string') v.push({ field: `settings.${key}.set`, description: 'must be a string' });
  }
  if (v.length > 0) return v;
  for (const key of BRANDING_COLOR_PROPERTIES) {
    const value = set[key];
    // '' clears a dark variant back to "as in the light scheme"; light colors always need one.
    if (value === undefined || (value === '' && key.endsWith('Dark')) || isBrandingColor(value)) continue;
    v.push({ field: `settings.${key}.set`, description: 'must be a color #rgb or #rrggbb' });
  }
  for (const key of BRANDING_URL_PROPERTIES) {
    const value = set[key];
    if (value === undefined || value === '' || isBrandingUrl(value)) continue;
    v.push({ field: `settings.${key}.set`, description: 'must be an https URL (http only for localhost)' });
  }
  return v;
}
