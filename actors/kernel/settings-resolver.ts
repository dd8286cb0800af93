/**
 * The generic settings resolver (seed 000 "Rules for settings"): properties are set at the
 * system (defaults), the instance or an organization; a context overrides some properties and
 * resets others to the parent value. A resolved property carries its value and, when it is
 * inherited, the owner it comes from.
 */
import type { Owner } from './ports.js';

/** One context's stored properties (absent key: not set there). */
export interface SettingsLayer<T> {
  readonly owner: Owner;
  readonly values: Partial<T> | undefined;
}

export interface ResolvedValue<V> {
  readonly value: V;
  /** Set when the value is inherited: the context it comes from. */
  readonly owner?: Owner;
}

/** Limits of the seed's Set types (SetString, SetStringLong, SetStringShort). */
export const SET_STRING_MAX = 256;
export const SET_STRING_LONG_MAX = 2048;
export const SET_STRING_SHORT_MAX = 64;

/**
 * Resolves one property through `layers`, ordered from the request context (first) up to the
 * system defaults (last). The first layer that sets it wins; the request context's own value
 * has no owner. Undefined when no layer sets it.
 */
export function resolveSetting<T, K extends keyof T>(layers: readonly SettingsLayer<T>[], key: K): ResolvedValue<T[K]> | undefined {
  for (const [index, layer] of layers.entries()) {
    const value = layer.values?.[key];
    if (value === undefined) continue;
    return index === 0 ? { value: value as T[K] } : { value: value as T[K], owner: layer.owner };
  }
  return undefined;
}

/** A change of one context's properties: values to set and properties reset to the parent. */
export interface SettingsPatch<T> {
  readonly set: Partial<T>;
  readonly reset: readonly (keyof T)[];
}

/** Applies a patch to one context's stored properties (pure; reset removes the key). */
export function applySettingsPatch<T>(current: Partial<T> | undefined, patch: SettingsPatch<T>): Partial<T> {
  const next: Partial<T> = { ...current, ...patch.set };
  for (const key of patch.reset) delete next[key];
  return next;
}

/** True when a patch leaves the stored properties as they are. */
export function isNoopPatch<T>(current: Partial<T> | undefined, patch: SettingsPatch<T>): boolean {
  return JSON.stringify(sortKeys(applySettingsPatch(current, patch))) === JSON.stringify(sortKeys(current ?? {}));
}

function sortKeys<T>(values: Partial<T>): [string, unknown][] {
  return Object.entries(values).sort(([a], [b]) => a.localeCompare(b));
}
