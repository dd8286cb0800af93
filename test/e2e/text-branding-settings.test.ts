/**
 * PlatformTextSettings and PlatformBrandingSettings over JSON/HTTP against a started node: set
 * at the instance, read inherited in an org with the owner, override and reset in the org,
 * invalid keys / languages / colors / URLs / lengths → 400 naming the field, permissions, and
 * the feature gate answering like the language settings.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformBrandingSettings } from '../../src/gen/platform/settings/branding/v3alpha/branding_service_pb.js';
import { PlatformTextSettings } from '../../src/gen/platform/settings/text/v3alpha/text_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const T = '/settings/v3alpha/texts';
const B = '/settings/v3alpha/branding';
const FEATURES = { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings' };

let node: TestNode;
let call: ReturnType<typeof api>;
let instanceId: string;
let orgId: string;

beforeAll(async () => {
  node = await startTestNode({ env: FEATURES });
  call = api(node);
  instanceId = (await readSetup(node)).instanceId;
  orgId = (await call('POST', '/resources/v3alpha/organizations', { name: 'Branding Org' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const instanceOwner = () => ({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
const system = { type: 'OWNER_TYPE_SYSTEM' };
const inOrg = () => `?ctx.orgId=${orgId}`;

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const response = await call(method, path, body);
  expect(response.status, `${method} ${path} ${JSON.stringify(response.body)}`).toBe(200);
  return response.body;
}

async function expect400(method: string, path: string, body: unknown, field: string): Promise<void> {
  const response = await call(method, path, body);
  expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
  expect(violatedFields(response.body), JSON.stringify(response.body)).toContain(field);
}

describe('text settings', () => {
  it('resolves every catalog key from the system catalog at first', async () => {
    const body = await ok('GET', `${T}/de`);
    expect(body.details.owner).toEqual(instanceOwner());
    expect(body.settings.texts.loginNameLabel).toEqual({ value: 'Loginname', owner: system });
    expect(body.settings.texts.next).toMatchObject({ owner: system });
    // A language with a catalog gets its own texts; a supported one without (Swedish) the English texts.
    expect((await ok('GET', `${T}/fr`)).settings.texts.title).toEqual({ value: 'Connexion', owner: system });
    expect((await ok('GET', `${T}/sv`)).settings.texts.title).toEqual({ value: 'Sign in', owner: system });
  });

  it('sets at the instance, inherits in the org with the owner, overrides and resets there', async () => {
    const written = await ok('PATCH', `${T}/en`, { texts: { loginNameIntro: { set: 'Welcome to ACME.' }, next: { set: 'Continue' } } });
    expect(written.details.owner).toEqual(instanceOwner());
    expect(Number(written.details.sequence)).toBeGreaterThan(0);
    const atInstance = (await ok('GET', `${T}/en`)).settings.texts;
    expect(atInstance.loginNameIntro).toEqual({ value: 'Welcome to ACME.' });
    expect(atInstance.title).toEqual({ value: 'Sign in', owner: system });
    // Another language is untouched.
    expect((await ok('GET', `${T}/de`)).settings.texts.next).toEqual({ value: 'Weiter', owner: system });

    const inherited = await ok('GET', `${T}/en${inOrg()}`);
    expect(inherited.details.owner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgId });
    expect(inherited.settings.texts.loginNameIntro).toEqual({ value: 'Welcome to ACME.', owner: instanceOwner() });

    const overridden = await ok('PATCH', `${T}/en${inOrg()}`, { texts: { loginNameIntro: { set: 'Welcome to the org.' } } });
    expect(overridden.details.owner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgId });
    const org = (await ok('GET', `${T}/en${inOrg()}`)).settings.texts;
    expect(org.loginNameIntro).toEqual({ value: 'Welcome to the org.' });
    expect(org.next).toEqual({ value: 'Continue', owner: instanceOwner() });
    expect((await ok('GET', `${T}/en`)).settings.texts.loginNameIntro).toEqual({ value: 'Welcome to ACME.' });

    const noop = await ok('PATCH', `${T}/en${inOrg()}`, { texts: { loginNameIntro: { set: 'Welcome to the org.' } } });
    expect(noop.details.sequence).toBe(overridden.details.sequence);

    await ok('PATCH', `${T}/en${inOrg()}`, { texts: { loginNameIntro: { reset: true } } });
    expect((await ok('GET', `${T}/en${inOrg()}`)).settings.texts.loginNameIntro).toEqual({ value: 'Welcome to ACME.', owner: instanceOwner() });
    await ok('PATCH', `${T}/en`, { texts: { loginNameIntro: { reset: true }, next: { reset: true } } });
    expect((await ok('GET', `${T}/en`)).settings.texts.loginNameIntro).toEqual({ value: 'Enter your login name.', owner: system });
  });

  it('rejects unknown keys, unsupported languages, bad Set values and too long texts naming the field', async () => {
    await expect400('PATCH', `${T}/en`, { texts: { noSuchKey: { set: 'x' } } }, 'settings.texts.noSuchKey');
    await expect400('PATCH', `${T}/en`, { texts: { next: { set: 'x'.repeat(2049) } } }, 'settings.texts.next.set');
    await expect400('PATCH', `${T}/en`, { texts: { next: { reset: false } } }, 'settings.texts.next.reset');
    await expect400('PATCH', `${T}/en`, { texts: { next: {} } }, 'settings.texts.next');
    await expect400('PATCH', `${T}/xx`, { texts: { next: { set: 'x' } } }, 'language');
    await expect400('PATCH', `${T}/EN`, { texts: { next: { set: 'x' } } }, 'language');
    await expect400('GET', `${T}/xx`, undefined, 'language');
    // 2048 characters is the limit, not beyond it.
    await ok('PATCH', `${T}/en`, { texts: { next: { set: 'y'.repeat(2048) } } });
    await ok('PATCH', `${T}/en`, { texts: { next: { reset: true } } });
  });
});

describe('branding settings', () => {
  it('starts with the system defaults', async () => {
    const body = await ok('GET', B);
    expect(body.details.owner).toEqual(instanceOwner());
    expect(body.settings.primaryColor).toEqual({ value: '#1a56db', owner: system });
    expect(body.settings.logoUrl).toEqual({ owner: system });
    expect(body.settings.disableWatermark).toEqual({ owner: system });
  });

  it('sets at the instance, inherits in the org with the owner, overrides and resets there', async () => {
    const written = await ok('PATCH', B, {
      primaryColor: { set: '#ff0000' },
      logoUrl: { set: 'https://cdn.example.com/logo.png' },
      hideLoginNameSuffix: { set: true },
      backgroundColorDark: { set: '#000' },
    });
    expect(written.details.owner).toEqual(instanceOwner());
    const atInstance = (await ok('GET', B)).settings;
    expect(atInstance.primaryColor).toEqual({ value: '#ff0000' });
    expect(atInstance.logoUrl).toEqual({ value: 'https://cdn.example.com/logo.png' });
    expect(atInstance.hideLoginNameSuffix).toEqual({ value: true });
    expect(atInstance.backgroundColorDark).toEqual({ value: '#000' });
    expect(atInstance.warnColor).toEqual({ value: '#b00020', owner: system });

    const inherited = await ok('GET', `${B}${inOrg()}`);
    expect(inherited.details.owner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgId });
    expect(inherited.settings.primaryColor).toEqual({ value: '#ff0000', owner: instanceOwner() });
    expect(inherited.settings.hideLoginNameSuffix).toEqual({ value: true, owner: instanceOwner() });

    const overridden = await ok('PATCH', `${B}${inOrg()}`, { primaryColor: { set: '#00FF00' }, hideLoginNameSuffix: { set: false }, disableWatermark: { set: true } });
    const org = (await ok('GET', `${B}${inOrg()}`)).settings;
    expect(org.primaryColor).toEqual({ value: '#00FF00' });
    // false set in the org is the org's own value, not inherited.
    expect(org.hideLoginNameSuffix).toEqual({});
    expect(org.disableWatermark).toEqual({ value: true });
    expect(org.logoUrl).toEqual({ value: 'https://cdn.example.com/logo.png', owner: instanceOwner() });
    expect((await ok('GET', B)).settings.primaryColor).toEqual({ value: '#ff0000' });

    const noop = await ok('PATCH', `${B}${inOrg()}`, { primaryColor: { set: '#00FF00' } });
    expect(noop.details.sequence).toBe(overridden.details.sequence);

    await ok('PATCH', `${B}${inOrg()}`, { primaryColor: { reset: true }, hideLoginNameSuffix: { reset: true } });
    const reset = (await ok('GET', `${B}${inOrg()}`)).settings;
    expect(reset.primaryColor).toEqual({ value: '#ff0000', owner: instanceOwner() });
    expect(reset.hideLoginNameSuffix).toEqual({ value: true, owner: instanceOwner() });
    expect(reset.disableWatermark).toEqual({ value: true });
  });

  it('rejects invalid colors, URLs and Set values naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ primaryColor: { set: 'red' } }, 'settings.primaryColor.set'],
      [{ fontColor: { set: '#12345' } }, 'settings.fontColor.set'],
      [{ warnColor: { set: '#ff0000;}body{' } }, 'settings.warnColor.set'],
      [{ backgroundColor: { set: '' } }, 'settings.backgroundColor.set'],
      [{ primaryColorDark: { set: 'x'.repeat(65) } }, 'settings.primaryColorDark.set'],
      [{ logoUrl: { set: 'http://cdn.example.com/logo.png' } }, 'settings.logoUrl.set'],
      [{ logoUrl: { set: 'javascript:alert(1)' } }, 'settings.logoUrl.set'],
      [{ fontUrl: { set: 'not a url' } }, 'settings.fontUrl.set'],
      [{ logoUrlDark: { set: `https://cdn.example.com/${'a'.repeat(2048)}` } }, 'settings.logoUrlDark.set'],
      [{ disableWatermark: { reset: false } }, 'settings.disableWatermark.reset'],
      [{ disableWatermark: {} }, 'settings.disableWatermark'],
      [{ disableWatermark: { set: 'yes' } }, 'settings.disableWatermark.set'],
    ];
    for (const [body, field] of cases) await expect400('PATCH', B, body, field);
    await ok('PATCH', B, { logoUrl: { set: 'http://localhost:9999/logo.png' } });
    await ok('PATCH', B, { logoUrl: { reset: true } });
  });

  it('answers 404 for an org context that does not exist', async () => {
    const response = await call('PATCH', `${B}?ctx.orgId=nope`, { primaryColor: { set: '#123' } });
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    expect(response.body.details[0].id).toBe('org.not_found');
  });
});

describe('both services', () => {
  it('work over gRPC like over JSON/HTTP', async () => {
    const transport = createGrpcTransport({ baseUrl: node.grpcUrl });
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const texts = createClient(PlatformTextSettings, transport);
    await texts.setTexts({ language: 'de', settings: { texts: { next: { property: { case: 'set', value: 'Los' } } } } }, auth);
    expect((await ok('GET', `${T}/de`)).settings.texts.next).toEqual({ value: 'Los' });
    const resolved = await texts.resolveTexts({ language: 'de' }, auth);
    expect(resolved.settings?.texts.next?.value).toBe('Los');
    expect(resolved.settings?.texts.next?.owner).toBeUndefined();
    await texts.setTexts({ language: 'de', settings: { texts: { next: { property: { case: 'reset', value: true } } } } }, auth);
    const branding = await createClient(PlatformBrandingSettings, transport).resolveBranding({}, auth);
    expect(branding.settings?.primaryColor?.value).toBe((await ok('GET', B)).settings.primaryColor.value);
  });

  it('check permissions in the request context', async () => {
    const viewer = await seedMachineUser(node, { username: 'brand-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const asViewer = api(node, viewer.token);
    const owner = await seedMachineUser(node, { username: 'brand-org-owner', memberships: [{ contextType: 'org', contextId: orgId, roles: ['ORG_OWNER'] }] });
    const asOrgOwner = api(node, owner.token);
    for (const [path, body] of [[`${T}/en`, { texts: { next: { set: 'Go' } } }], [B, { primaryColor: { set: '#123' } }]] as const) {
      expect((await asViewer('GET', path)).status).toBe(200);
      expect((await asViewer('PATCH', path, body)).status).toBe(403);
      expect((await asOrgOwner('PATCH', `${path}${inOrg()}`, body)).status).toBe(200);
      expect((await asOrgOwner('GET', `${path}${inOrg()}`)).status).toBe(200);
      expect((await asOrgOwner('PATCH', path, body)).status).toBe(403);
      expect((await asOrgOwner('GET', path)).status).toBe(403);
      expect((await api(node, '')('GET', path)).status).toBe(401);
    }
  });

  it('answer 400 code 9 feature.disabled while multitenancy_settings is off', async () => {
    expect((await call('PATCH', '/settings/v3alpha/features', { multitenancy_settings: false })).status).toBe(200);
    try {
      const requests: [string, string, unknown?][] = [
        ['GET', `${T}/en`],
        ['PATCH', `${T}/en`, { texts: { next: { set: 'Go' } } }],
        ['GET', B],
        ['PATCH', B, { primaryColor: { set: '#123' } }],
      ];
      for (const [method, path, body] of requests) {
        const response = await call(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(response.body.code).toBe(9);
        expect(response.body.details[0].id).toBe('feature.disabled');
      }
    } finally {
      await call('PATCH', '/settings/v3alpha/features', { multitenancy_settings: true });
    }
  });
});
