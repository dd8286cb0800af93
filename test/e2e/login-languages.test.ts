/**
 * The login UI's languages against a started node, with fetch as the browser: pages in Japanese
 * and French through ui_locales (title, labels, buttons, a refusal), Accept-Language with the
 * fallbacks (pt-BR → pt, zh-CN / zh-Hans → zh, a language without a catalog skipped, English
 * when nothing matches, the instance's default language when set), ui_locales before
 * Accept-Language, and discovery's `ui_locales_supported` equal to the catalogs shipped in src/i18n.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_LANGUAGES, catalogFor } from '../../src/i18n/index.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, type FlowTenant } from './oidc-code-flow.fixture.js';
import { codeRequest, csrfOf, getPage, postLogin, startLogin, type PageResult } from './login-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';

let node: TestNode;
let tenant: FlowTenant;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings' } });
  tenant = await createFlowTenant(node, REDIRECT_URI);
  await createHuman(node, 'lang-user');
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

/** Starts a login (with `ui_locales` when given) and opens its first page with `Accept-Language`. */
async function firstPage(uiLocales?: string, acceptLanguage?: string): Promise<{ page: PageResult; post: (form: Record<string, string>) => Promise<PageResult> }> {
  const started = await startLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI, uiLocales === undefined ? {} : { ui_locales: uiLocales }).url);
  const headers: Record<string, string> = { cookie: started.jar.header(), ...(acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage }) };
  const response = await fetch(`${node.baseUrl}${started.location}`, { redirect: 'manual', headers });
  const page = { status: response.status, text: await response.text(), location: null, response };
  const csrf = csrfOf(page.text);
  const post = async (form: Record<string, string>): Promise<PageResult> => {
    const posted = await postLogin(node, { authRequest: started.authRequest, csrf, ...form }, { ...headers, origin: node.baseUrl });
    return posted.status === 303 && posted.location !== null ? getPageWith(posted.location, headers) : posted;
  };
  return { page, post };
}

async function getPageWith(path: string, headers: Record<string, string>): Promise<PageResult> {
  const response = await fetch(`${node.baseUrl}${path}`, { redirect: 'manual', headers });
  return { status: response.status, text: await response.text(), location: response.headers.get('location'), response };
}

function langOf(page: PageResult): string | undefined {
  return /<html lang="([^"]*)">/.exec(page.text)?.[1];
}

describe('login UI languages', () => {
  it('shows the Japanese pages for ui_locales=ja, the refusal included', async () => {
    const ja = catalogFor('ja');
    const { page, post } = await firstPage('ja', 'en-US');
    expect(page.status).toBe(200);
    expect(langOf(page)).toBe('ja');
    expect(page.text).toContain(`<title>${ja.title}</title>`);
    expect(page.text).toContain(`<label for="loginName">${ja.loginNameLabel}</label>`);
    expect(page.text).toContain(`class="primary">${ja.next}</button>`);
    expect(page.text).toContain(`class="secondary">${ja.registerLink}</button>`);
    const password = await post({ action: 'loginname', loginName: 'lang-user' });
    expect(langOf(password)).toBe('ja');
    expect(password.text).toContain(`<label for="password">${ja.passwordLabel}</label>`);
    const refused = await post({ action: 'password', password: 'Wr0ngPassword' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`<p class="error" role="alert">${ja.loginFailed}</p>`);
  });

  it('shows the French pages for ui_locales=fr (before an Accept-Language asking for German)', async () => {
    const fr = catalogFor('fr');
    const { page, post } = await firstPage('fr-CA fr', 'de');
    expect(langOf(page)).toBe('fr');
    expect(page.text).toContain(`<h1>${fr.title}</h1>`);
    expect(page.text).toContain(`<p>${fr.loginNameIntro}</p>`);
    const registration = await post({ action: 'register' });
    expect(registration.text).toContain(`<h1>${fr.registerTitle}</h1>`);
    expect(registration.text).toContain(`class="secondary">${fr.haveAccount}</button>`);
    // Control: the same login without ui_locales follows Accept-Language to German.
    expect(langOf((await firstPage(undefined, 'de')).page)).toBe('de');
  });

  it.each([
    ['pt-BR,pt;q=0.9,en;q=0.5', 'pt'],
    ['zh-CN,zh;q=0.9', 'zh'],
    ['zh-Hans', 'zh'],
    ['sv, nl;q=0.8, en;q=0.1', 'nl'],
    ['es-419', 'es'],
    ['it-CH;q=0.9, ja;q=0.95', 'ja'],
    ['sv, ko', 'en'],
    [undefined, 'en'],
  ])('follows Accept-Language %j to %s', async (acceptLanguage, lang) => {
    const { page } = await firstPage(undefined, acceptLanguage);
    expect(langOf(page)).toBe(lang);
    expect(page.text).toContain(`<h1>${catalogFor(lang).title}</h1>`);
  });

  it('takes zh-Hans and pt-BR in ui_locales to the zh and pt catalogs', async () => {
    expect(langOf((await firstPage('zh-Hans')).page)).toBe('zh');
    expect(langOf((await firstPage('pt-BR')).page)).toBe('pt');
    expect(langOf((await firstPage('sv nl')).page)).toBe('nl');
  });

  it('falls back to the instance’s default language when the browser asks for none offered', async () => {
    const set = await api(node)('PATCH', '/settings/v3alpha/languages', { defaultLanguage: { key: 'nl' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    try {
      expect(langOf((await firstPage(undefined, 'sv, ko')).page)).toBe('nl');
      expect(langOf((await firstPage(undefined, undefined)).page)).toBe('nl');
      // Control: a language asked for and offered still wins over the default.
      expect(langOf((await firstPage(undefined, 'sv, fr;q=0.5')).page)).toBe('fr');
    } finally {
      expect((await api(node)('PATCH', '/settings/v3alpha/languages', { defaultLanguage: { key: '' } })).status).toBe(200);
    }
    expect(langOf((await firstPage(undefined, 'sv, ko')).page)).toBe('en');
  });

  it('shows error pages outside a login request in the Accept-Language', async () => {
    const response = await fetch(`${node.baseUrl}/ui/login/login?authRequest=unknown`, { headers: { 'accept-language': 'ja' } });
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).toContain(`<h1>${catalogFor('ja').errorTitle}</h1>`);
    expect(text).toContain(catalogFor('ja').authRequestUnknown);
  });

  it('lists exactly the shipped catalogs in discovery’s ui_locales_supported', async () => {
    const metadata = (await (await fetch(`${node.baseUrl}/.well-known/openid-configuration`)).json()) as { ui_locales_supported: string[] };
    const shipped = readdirSync(new URL('../../src/i18n/', import.meta.url))
      .filter((file) => /^[a-z]{2}\.ts$/.test(file))
      .map((file) => file.slice(0, 2))
      .sort();
    expect(shipped).toEqual(['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pt', 'zh']);
    expect([...metadata.ui_locales_supported].sort()).toEqual(shipped);
    expect(CATALOG_LANGUAGES).toEqual(metadata.ui_locales_supported);
  });
});
