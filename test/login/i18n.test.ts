/** Login UI language choice: ui_locales first, then Accept-Language by q, within the catalogs; English by default. */
import { describe, expect, it } from 'vitest';
import { de } from '../../src/i18n/de.js';
import { en } from '../../src/i18n/en.js';
import { chooseLanguage, parseAcceptLanguage } from '../../src/i18n/index.js';

describe('login language', () => {
  it.each([
    [['de'], 'en-US', 'de'],
    [['fr-CA', 'de-AT'], undefined, 'de'],
    [[], 'fr;q=0.9, de;q=0.8, en;q=0.1', 'de'],
    [[], 'de;q=0, en', 'en'],
    [['xx'], 'de-CH', 'de'],
    [[], undefined, 'en'],
    [[], '*', 'en'],
  ])('ui_locales %j, Accept-Language %j → %s', (uiLocales, accept, lang) => {
    expect(chooseLanguage(uiLocales, accept)).toBe(lang);
  });

  it('orders Accept-Language by q, ties in header order', () => {
    expect(parseAcceptLanguage('en;q=0.5, de, fr;q=0.5')).toEqual(['de', 'en', 'fr']);
  });

  it('has every English key in German, and no empty strings', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    expect(Object.values(de)).not.toContain('');
  });
});
