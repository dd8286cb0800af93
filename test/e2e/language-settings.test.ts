/**
 * PlatformLanguageSettings over JSON/HTTP against a started node: set at the instance, read
 * inherited in an org with the owner, override and reset in the org, invalid keys, the default
 * outside the restricted languages, permissions, the feature flag, and discovery's
 * `ui_locales_supported` following the instance's restricted languages at once (only those the
 * login UI has a catalog for; all shipped catalogs without a restriction).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const L = '/settings/v3alpha/languages';
const FEATURES = { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings' };
const SUPPORTED = ['bg', 'cs', 'de', 'en', 'es', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'mk', 'nl', 'pl', 'pt', 'ro', 'ru', 'sv', 'tr', 'zh'];
/** The supported languages the login UI ships a catalog for: discovery lists these without a restriction. */
const SHIPPED = ['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pt', 'zh'];
const langs = (...keys: string[]) => keys.map((key) => ({ key }));

let node: TestNode;
let call: ReturnType<typeof api>;
let instanceId: string;
let orgId: string;

beforeAll(async () => {
  node = await startTestNode({ env: FEATURES });
  call = api(node);
  instanceId = (await readSetup(node)).instanceId;
  orgId = (await call('POST', '/resources/v3alpha/organizations', { name: 'Language Org' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const instanceOwner = () => ({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
const system = { type: 'OWNER_TYPE_SYSTEM' };

async function resolve(query = ''): Promise<any> {
  const response = await call('GET', `${L}${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function set(body: unknown, query = ''): Promise<any> {
  const response = await call('PATCH', `${L}${query}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function discoveryLocales(): Promise<string[]> {
  const response = await fetch(`${node.baseUrl}/.well-known/openid-configuration`);
  return ((await response.json()) as { ui_locales_supported: string[] }).ui_locales_supported;
}

describe('language settings', () => {
  it('starts with the system defaults', async () => {
    const body = await resolve();
    expect(body.details.owner).toEqual(instanceOwner());
    expect(body.settings).toEqual({
      defaultLanguage: { value: 'en', owner: system },
      restrictedLanguages: { owner: system },
      supportedLanguages: { value: langs(...SUPPORTED), owner: system },
    });
    expect(await discoveryLocales()).toEqual(SHIPPED);
  });

  it('sets at the instance, reads inherited in the org with the owner, overrides and resets there', async () => {
    const written = await set({ defaultLanguage: { key: 'de' }, restrictedLanguages: { languages: langs('de', 'en', 'fr') } });
    expect(written.details.owner).toEqual(instanceOwner());
    const atInstance = (await resolve()).settings;
    expect(atInstance.defaultLanguage).toEqual({ value: 'de' });
    expect(atInstance.restrictedLanguages).toEqual({ value: langs('de', 'en', 'fr') });
    expect(await discoveryLocales()).toEqual(['de', 'en', 'fr']);

    const inherited = await resolve(`?ctx.orgId=${orgId}`);
    expect(inherited.details.owner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgId });
    expect(inherited.settings.defaultLanguage).toEqual({ value: 'de', owner: instanceOwner() });
    expect(inherited.settings.restrictedLanguages).toEqual({ value: langs('de', 'en', 'fr'), owner: instanceOwner() });

    const overridden = await set({ defaultLanguage: { key: 'fr' } }, `?ctx.orgId=${orgId}`);
    expect(overridden.details.owner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgId });
    const inOrg = (await resolve(`?ctx.orgId=${orgId}`)).settings;
    expect(inOrg.defaultLanguage).toEqual({ value: 'fr' });
    expect(inOrg.restrictedLanguages).toEqual({ value: langs('de', 'en', 'fr'), owner: instanceOwner() });
    expect((await resolve()).settings.defaultLanguage).toEqual({ value: 'de' });

    const noop = await set({ defaultLanguage: { key: 'fr' } }, `?ctx.orgId=${orgId}`);
    expect(noop.details.sequence).toBe(overridden.details.sequence);

    await set({ defaultLanguage: { key: '' } }, `?ctx.orgId=${orgId}`);
    expect((await resolve(`?ctx.orgId=${orgId}`)).settings.defaultLanguage).toEqual({ value: 'de', owner: instanceOwner() });

    await set({ restrictedLanguages: { languages: langs('de', 'it') } }, `?ctx.orgId=${orgId}`);
    expect((await resolve(`?ctx.orgId=${orgId}`)).settings.restrictedLanguages).toEqual({ value: langs('de', 'it') });
    await set({ restrictedLanguages: { languages: [] } }, `?ctx.orgId=${orgId}`);
    expect((await resolve(`?ctx.orgId=${orgId}`)).settings.restrictedLanguages).toEqual({ value: langs('de', 'en', 'fr'), owner: instanceOwner() });
  });

  it('changes only the fields present, and discovery follows a reset at once (with a new ETag)', async () => {
    await set({ restrictedLanguages: { languages: langs('de', 'en') } });
    expect(await discoveryLocales()).toEqual(['de', 'en']);
    const etag = (await fetch(`${node.baseUrl}/.well-known/openid-configuration`)).headers.get('etag')!;
    const unchanged = await fetch(`${node.baseUrl}/.well-known/openid-configuration`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect((await resolve()).settings.defaultLanguage).toEqual({ value: 'de' });
    await set({ defaultLanguage: { key: '' }, restrictedLanguages: { languages: [] } });
    const reset = (await resolve()).settings;
    expect(reset.defaultLanguage).toEqual({ value: 'en', owner: system });
    expect(reset.restrictedLanguages).toEqual({ owner: system });
    expect(await discoveryLocales()).toEqual(SHIPPED);
    const changed = await fetch(`${node.baseUrl}/.well-known/openid-configuration`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('rejects invalid and unsupported keys naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ defaultLanguage: { key: 'DE' } }, 'settings.defaultLanguage.key'],
      [{ defaultLanguage: { key: 'deu' } }, 'settings.defaultLanguage.key'],
      [{ defaultLanguage: { key: 'xx' } }, 'settings.defaultLanguage.key'],
      [{ restrictedLanguages: { languages: langs('en', 'e1') } }, 'settings.restrictedLanguages.languages[1].key'],
      [{ restrictedLanguages: { languages: langs('en', 'qq') } }, 'settings.restrictedLanguages.languages[1].key'],
    ];
    for (const [body, field] of cases) {
      const response = await call('PATCH', L, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(violatedFields(response.body)).toContain(field);
    }
  });

  it('rejects a default language outside the effective restricted languages', async () => {
    const outside = await call('PATCH', L, { defaultLanguage: { key: 'ja' }, restrictedLanguages: { languages: langs('de', 'en') } });
    expect(outside.status).toBe(400);
    expect(outside.body.details[0].id).toBe('language.default_not_restricted');
    await set({ restrictedLanguages: { languages: langs('en', 'sv') } });
    // Restricted to a language without a catalog (sv): discovery lists only the restricted ones the UI can show.
    expect(await discoveryLocales()).toEqual(['en']);
    const inOrg = await call('PATCH', `${L}?ctx.orgId=${orgId}`, { defaultLanguage: { key: 'de' } });
    expect(inOrg.status).toBe(400);
    expect(inOrg.body.details[0].id).toBe('language.default_not_restricted');
    await set({ restrictedLanguages: { languages: [] } });
  });

  it('checks permissions in the request context', async () => {
    const viewer = await seedMachineUser(node, { username: 'lang-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', L)).status).toBe(200);
    expect((await asViewer('PATCH', L, { defaultLanguage: { key: 'de' } })).status).toBe(403);
    const owner = await seedMachineUser(node, { username: 'lang-org-owner', memberships: [{ contextType: 'org', contextId: orgId, roles: ['ORG_OWNER'] }] });
    const asOrgOwner = api(node, owner.token);
    expect((await asOrgOwner('PATCH', `${L}?ctx.orgId=${orgId}`, { defaultLanguage: { key: 'es' } })).status).toBe(200);
    expect((await asOrgOwner('GET', `${L}?ctx.orgId=${orgId}`)).status).toBe(200);
    expect((await asOrgOwner('PATCH', L, { defaultLanguage: { key: 'es' } })).status).toBe(403);
    expect((await api(node, '')('GET', L)).status).toBe(401);
  });

  it('resolves for any authenticated caller of the instance; setting keeps its permission check (issue #12 item 13)', async () => {
    const nobody = await seedMachineUser(node, { username: 'lang-no-roles', memberships: [] });
    const asNobody = api(node, nobody.token);
    const resolved = await asNobody('GET', L);
    expect(resolved.status).toBe(200);
    expect(resolved.body.settings.supportedLanguages.value.map((l: { key: string }) => l.key)).toEqual(SUPPORTED);
    expect((await asNobody('GET', `${L}?ctx.orgId=${orgId}`)).status).toBe(200);
    expect((await asNobody('PATCH', L, { defaultLanguage: { key: 'de' } })).status).toBe(403);
    expect((await asNobody('PATCH', `${L}?ctx.orgId=${orgId}`, { defaultLanguage: { key: 'de' } })).status).toBe(403);
  });

  it('answers 400 code 9 feature.disabled while multitenancy_settings is off', async () => {
    expect((await call('PATCH', '/settings/v3alpha/features', { multitenancy_settings: false })).status).toBe(200);
    try {
      for (const [method, body] of [['GET'], ['PATCH', { defaultLanguage: { key: 'de' } }]] as [string, unknown?][]) {
        const response = await call(method, L, body);
        expect(response.status, method).toBe(400);
        expect(response.body.code).toBe(9);
        expect(response.body.details[0].id).toBe('feature.disabled');
      }
    } finally {
      await call('PATCH', '/settings/v3alpha/features', { multitenancy_settings: true });
    }
  });
});
