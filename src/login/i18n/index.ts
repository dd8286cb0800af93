/**
 * Picks the login UI language: the first of ui_locales, then of Accept-Language (RFC 9110
 * §12.5.4, by q-value), that the instance supports and that has a catalog; English otherwise.
 * TODO(issue 6): restrict to the instance's restricted languages once language settings exist.
 */
import { SUPPORTED_LANGUAGES } from '../../oidc/shared/ui-locales.js';
import { de } from './de.js';
import { en, type Catalog, type MessageKey } from './en.js';

export type { Catalog, MessageKey };

const CATALOGS: Readonly<Record<string, Catalog>> = { en, de };

export interface Translator {
  readonly lang: string;
  t(key: MessageKey): string;
}

function baseLanguage(tag: string): string {
  return tag.trim().toLowerCase().split('-')[0] ?? '';
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

export function chooseLanguage(uiLocales: readonly string[], acceptLanguage: string | undefined, supported: readonly string[] = SUPPORTED_LANGUAGES): string {
  for (const tag of [...uiLocales, ...parseAcceptLanguage(acceptLanguage)]) {
    const lang = baseLanguage(tag);
    if (supported.includes(lang) && Object.hasOwn(CATALOGS, lang)) return lang;
  }
  // Nothing asked for is offered: English when offered, else the first offered language with a catalog.
  if (supported.includes('en')) return 'en';
  return supported.find((lang) => Object.hasOwn(CATALOGS, lang)) ?? 'en';
}

export function createTranslator(lang: string): Translator {
  const catalog = CATALOGS[lang] ?? en;
  return { lang: Object.hasOwn(CATALOGS, lang) ? lang : 'en', t: (key) => catalog[key] };
}
