/** Login UI language choice: ui_locales first, then Accept-Language by q, within the catalogs; English by default. */
import { describe, expect, it } from 'vitest';
import { de } from '../../src/i18n/de.js';
import { en, type Catalog } from '../../src/i18n/en.js';
import { CATALOG_LANGUAGES, catalogFor, chooseLanguage, createTranslator, parseAcceptLanguage, withCatalogs } from '../../src/i18n/index.js';
import { idpLinks } from '../../src/login/external/pages.js';
import { passwordRules } from '../../src/login/password-rules.js';
import { complexityViolations } from '../../src/crypto/password.js';

describe('login language', () => {
  it.each([
    [['de'], 'en-US', 'de'],
    // A language without a catalog (sv) is skipped; fr now has one and wins.
    [['sv-FI', 'de-AT'], undefined, 'de'],
    [[], 'sv;q=0.9, de;q=0.8, en;q=0.1', 'de'],
    [['fr-CA', 'de-AT'], undefined, 'fr'],
    [[], 'fr;q=0.9, de;q=0.8, en;q=0.1', 'fr'],
    [[], 'de;q=0, en', 'en'],
    [['xx'], 'de-CH', 'de'],
    [[], undefined, 'en'],
    [[], '*', 'en'],
    [['pt-BR'], undefined, 'pt'],
    [['zh-Hans'], undefined, 'zh'],
    [['zh-CN'], undefined, 'zh'],
    [['zh_TW'], undefined, 'zh'],
    [['ja-JP'], 'de', 'ja'],
    [['sv'], 'sv, nl;q=0.5', 'nl'],
    [[], 'ko, es-MX;q=0.7, fr;q=0.6', 'es'],
    [['ko', 'sv'], undefined, 'en'],
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

  it('ships a full catalog for en, de, es, fr, it, ja, nl, pt and zh, each its own', () => {
    expect(CATALOG_LANGUAGES).toEqual(['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pt', 'zh']);
    for (const lang of CATALOG_LANGUAGES) {
      const catalog = catalogFor(lang);
      expect(Object.keys(catalog).sort(), lang).toEqual(Object.keys(en).sort());
      expect(Object.values(catalog).filter((text) => text.trim() === ''), lang).toEqual([]);
      if (lang !== 'en') expect(catalog.loginNameIntro, lang).not.toBe(en.loginNameIntro);
      expect(createTranslator(lang).lang).toBe(lang);
    }
    // A language without a catalog gets English.
    expect(catalogFor('sv')).toBe(en);
    expect(createTranslator('sv').lang).toBe('en');
  });

  it('fails typecheck for a catalog missing a key or with an unknown one', () => {
    const { title: _dropped, ...withoutTitle } = en;
    // @ts-expect-error a catalog without `title` is not a Catalog
    const missing: Catalog = withoutTitle;
    // @ts-expect-error an unknown key is not part of a catalog
    const extra = { ...en, notAKey: 'x' } as const satisfies Catalog;
    expect([missing, extra].length).toBe(2);
  });

  it('offers only languages with a catalog, within the restricted ones; English when none has one', () => {
    expect(withCatalogs(['de', 'sv', 'en'])).toEqual(['de', 'en']);
    expect(withCatalogs(['sv', 'ko'])).toEqual(['en']);
    expect(chooseLanguage(['fr'], undefined, withCatalogs(['de', 'en']))).toBe('en');
    expect(chooseLanguage(['fr'], undefined, withCatalogs(['de', 'fr']))).toBe('fr');
    // Restricted without English: the first offered language with a catalog.
    expect(chooseLanguage(['ja'], undefined, withCatalogs(['de', 'nl']))).toBe('de');
    // The instance's default language when nothing asked for is offered (only when it has a catalog and is offered).
    expect(chooseLanguage(['sv'], 'ko', CATALOG_LANGUAGES, 'nl')).toBe('nl');
    expect(chooseLanguage(['fr'], 'ko', CATALOG_LANGUAGES, 'nl')).toBe('fr');
    expect(chooseLanguage(['sv'], undefined, CATALOG_LANGUAGES, 'sv')).toBe('en');
    expect(chooseLanguage(['sv'], undefined, withCatalogs(['de', 'en']), 'nl')).toBe('en');
  });

  it('puts the provider name where the language wants it ("Sign in with X", "X でログイン")', () => {
    const link = (lang: string) => idpLinks({ authRequestId: 'a', csrf: 'c', redirectUri: 'https://app.example/cb', tr: createTranslator(lang) }, [{ id: 'i', name: 'Acme $&' }])[0]?.label;
    expect(link('en')).toBe('Sign in with Acme $&');
    expect(link('ja')).toBe('Acme $& でログイン');
    expect(link('zh')).toBe('使用 Acme $& 登录');
  });

  it('lists the password rules in the page language, in English the words of the complexity check', () => {
    const policy = { minLength: 12, hasUppercase: true, hasLowercase: false, hasNumber: true, hasSymbol: true };
    expect(passwordRules(createTranslator('en'), policy)).toEqual(complexityViolations('', policy));
    expect(passwordRules(createTranslator('de'), policy)).toEqual(['muss mindestens 12 Zeichen lang sein', 'muss einen Großbuchstaben enthalten', 'muss eine Ziffer enthalten', 'muss ein Sonderzeichen enthalten']);
    expect(passwordRules(createTranslator('ja'), { ...policy, hasUppercase: false, hasNumber: false, hasSymbol: false })).toEqual(['12文字以上であること']);
    expect(passwordRules(createTranslator('en'), { minLength: 0, hasUppercase: false, hasLowercase: false, hasNumber: false, hasSymbol: false })).toEqual([]);
  });
});
