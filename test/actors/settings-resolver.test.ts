/** The generic settings resolver, the language settings resolution and the Set type parsers. */
import { describe, expect, it } from 'vitest';
import {
  applySettingsPatch,
  instanceOwner,
  isNoopPatch,
  offeredLanguages,
  orgOwner,
  resolveLanguageSettings,
  resolveSetting,
  SUPPORTED_LANGUAGES,
  systemOwner,
  type FieldViolation,
  type SettingsLayer,
} from '../../actors/index.js';
import { parseSet, parseSetString } from '../../src/api/settings/shared/set-values.js';

interface Props {
  a: string;
  b: number;
}

describe('resolveSetting', () => {
  const layers: SettingsLayer<Props>[] = [
    { owner: orgOwner('o1'), values: { a: 'org' } },
    { owner: instanceOwner('i1'), values: { a: 'instance', b: 2 } },
    { owner: systemOwner, values: { a: 'system', b: 1 } },
  ];
  it('takes the nearest value; own values have no owner, inherited ones name it', () => {
    expect(resolveSetting(layers, 'a')).toEqual({ value: 'org' });
    expect(resolveSetting(layers, 'b')).toEqual({ value: 2, owner: instanceOwner('i1') });
    const unset: SettingsLayer<Props>[] = [{ owner: systemOwner, values: undefined }];
    expect(resolveSetting(unset, 'a')).toBeUndefined();
  });

  it('applies set and reset; a patch that changes nothing is a no-op', () => {
    expect(applySettingsPatch<Props>({ a: 'x', b: 1 }, { set: { a: 'y' }, reset: ['b'] })).toEqual({ a: 'y' });
    expect(isNoopPatch<Props>({ a: 'x' }, { set: { a: 'x' }, reset: ['b'] })).toBe(true);
    expect(isNoopPatch<Props>(undefined, { set: {}, reset: ['a'] })).toBe(true);
    expect(isNoopPatch<Props>({ a: 'x' }, { set: {}, reset: ['a'] })).toBe(false);
  });
});

describe('language settings resolution', () => {
  it('walks org → instance → system', () => {
    const resolved = resolveLanguageSettings('i1', { restrictedLanguages: ['de', 'en'] }, { orgId: 'o1', values: { defaultLanguage: 'en' } });
    expect(resolved.defaultLanguage).toEqual({ value: 'en' });
    expect(resolved.restrictedLanguages).toEqual({ value: ['de', 'en'], owner: instanceOwner('i1') });
    expect(resolved.supportedLanguages.owner).toEqual(systemOwner);
    expect(offeredLanguages(resolved)).toEqual(['de', 'en']);
    const empty = resolveLanguageSettings('i1', undefined);
    expect(empty.defaultLanguage).toEqual({ value: 'en', owner: systemOwner });
    expect(offeredLanguages(empty)).toBe(SUPPORTED_LANGUAGES);
  });
});

describe('Set type parsers', () => {
  it('accepts set within the limits and reset true; refuses the rest', () => {
    const v: FieldViolation[] = [];
    expect(parseSetString({ case: 'set', value: 'x'.repeat(64) }, 'short', 'f', v)).toEqual({ kind: 'set', value: 'x'.repeat(64) });
    expect(parseSetString({ case: 'set', value: 'x'.repeat(65) }, 'short', 'f', v)).toBeUndefined();
    expect(parseSetString({ case: 'set', value: 'x'.repeat(256) }, 'string', 'f', v)).toBeDefined();
    expect(parseSetString({ case: 'set', value: 'x'.repeat(257) }, 'string', 'f', v)).toBeUndefined();
    expect(parseSetString({ case: 'set', value: 'x'.repeat(2048) }, 'long', 'f', v)).toBeDefined();
    expect(parseSetString({ case: 'set', value: 'x'.repeat(2049) }, 'long', 'f', v)).toBeUndefined();
    expect(parseSet({ case: 'reset', value: true }, 'f', v)).toEqual({ kind: 'reset' });
    expect(parseSet({ case: 'reset', value: false }, 'f', v)).toBeUndefined();
    expect(parseSet({ case: undefined }, 'f', v)).toBeUndefined();
    expect(v.map((x) => x.field)).toEqual(['f.set', 'f.set', 'f.set', 'f.reset', 'f']);
  });
});
