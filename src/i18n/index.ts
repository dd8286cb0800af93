/**
 * The login UI's catalogs and language choice. A catalog per shipped language (en, de, es, fr,
 * it, ja, nl, pt, zh; each `satisfies Catalog`, so a missing key fails typecheck). The page
 * language is the first of ui_locales, then of Accept-Language (RFC 9110 §12.5.4, by q-value),
 * whose primary subtag (`pt-BR` → pt, `zh-Hans`/`zh-CN` → zh) the instance offers and has a
 * catalog; English otherwise.
 */
import { type BrandingSettingsValues, SUPPORTED_LANGUAGES } from '../../actors/index.js';
import { de } from './de.js';
import { en, type Catalog, type MessageKey } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it } from './it.js';
import { ja } from './ja.js';
import { nl } from './nl.js';
import { pt } from './pt.js';
import { zh } from './zh.js';

export type { Catalog, MessageKey };

const CATALOGS: Readonly<Record<string, Catalog>> = { de, en, es, fr, it, ja, nl, pt, zh };

/** The languages the login UI ships a catalog for, in the order of the supported languages. */
export const CATALOG_LANGUAGES: readonly string[] = Object.freeze(SUPPORTED_LANGUAGES.filter((lang) => Object.hasOwn(CATALOGS, lang)));

/**
 * The languages of `offered` (an instance's restricted or supported languages) the login UI can
 * show, in their order; English (the fallback every page then uses) when none of them has a catalog.
 */
export function withCatalogs(offered: readonly string[]): readonly string[] {
  const shown = offered.filter((lang) => Object.hasOwn(CATALOGS, lang));
  return shown.length > 0 ? shown : ['en'];
}

/** Every key of the login catalog (the keys text settings may set). */
export const MESSAGE_KEYS: readonly MessageKey[] = Object.freeze(Object.keys(en) as MessageKey[]);

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

export interface Translator {
  readonly lang: string;
  t(key: MessageKey): string;
  /** The login context's branding (text and branding settings, issue 6); undefined: the built-in look. */
  readonly branding?: BrandingSettingsValues;
}

/** What the login context's settings change: texts of this language (key → text) and the branding. */
export interface Customization {
  readonly texts?: Readonly<Partial<Record<MessageKey, string>>>;
  readonly branding?: BrandingSettingsValues;
}

/** The primary language subtag (`pt-BR` → pt, `zh-Hans-CN` → zh; `_` accepted as separator). */
function baseLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/u)[0] ?? '';
}

/** Accept-Language tags ordered by q (ties keep header order); `*` and q=0 dropped. */
export function parseAcceptLanguage(header: string | undefined): string[] {
  const entries = (header ?? '').split(',').map((part, index) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { tag: tag.trim(), q: q === undefined ? 1 : Number(q.slice(2)), index };
  });
  return entries
    .filter((e) => e.tag !== '' && e.tag !== '*' && Number.isFinite(e.q) && e.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((e) => e.tag);
}

/**
 * `fallback`: the language when nothing asked for is offered (the instance's default language,
 * used when it is offered and has a catalog); else English when offered, else the first offered
 * language with a catalog.
 */
export function chooseLanguage(uiLocales: readonly string[], acceptLanguage: string | undefined, supported: readonly string[] = SUPPORTED_LANGUAGES, fallback?: string): string {
  for (const tag of [...uiLocales, ...parseAcceptLanguage(acceptLanguage)]) {
    const lang = baseLanguage(tag);
    if (supported.includes(lang) && Object.hasOwn(CATALOGS, lang)) return lang;
  }
  if (fallback !== undefined && supported.includes(fallback) && Object.hasOwn(CATALOGS, fallback)) return fallback;
  if (supported.includes('en')) return 'en';
  return supported.find((lang) => Object.hasOwn(CATALOGS, lang)) ?? 'en';
}

/** The built-in texts of a language (English for a language without a catalog). */
export function catalogFor(lang: string): Catalog {
  return CATALOGS[lang] ?? en;
}

/**
 * A translator for `lang`: a text the settings set for a key wins over the catalog's; an
 * empty text falls back to the catalog (a login page never shows an empty label).
 */
export function createTranslator(lang: string, custom: Customization = {}): Translator {
  const catalog = catalogFor(lang);
  const texts = custom.texts ?? {};
  const t = (key: MessageKey) => (Object.hasOwn(texts, key) && texts[key] ? (texts[key] as string) : catalog[key]);
  return { lang: Object.hasOwn(CATALOGS, lang) ? lang : 'en', t, ...(custom.branding === undefined ? {} : { branding: custom.branding }) };
}
