/**
 * Text and branding settings applied by the login UI, in a real browser: the login page shows
 * the instance's overridden text, its primary color (a CSS custom property the submit button
 * uses), its logo (loaded under the page's CSP) and the watermark; an org-scoped login shows
 * the organization's overrides (text, color, hidden watermark, login name without suffix)
 * while an unscoped login keeps the instance's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, PASSWORD, startCallbackServer, type CallbackServer } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

// A 1×1 PNG, served from another origin than the node's, as the logo.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let node: TestNode;
let callback: CallbackServer;
let logoServer: Server;
let logoUrl: string;
let browser: TestBrowser | undefined;
let config: oidc.Configuration;
let orgId: string;
let orgDomain: string;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings' } });
  callback = await startCallbackServer();
  logoServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
  await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
  logoUrl = `http://localhost:${(logoServer.address() as AddressInfo).port}/logo.png`;
  const tenant = await createFlowTenant(node, callback.redirectUri);
  const call = api(node);
  orgId = (await call('POST', '/resources/v3alpha/organizations', { name: 'Branded Org' })).body.details.id;
  orgDomain = (await call('GET', `/resources/v3alpha/organizations/${orgId}`)).body.organization.primaryDomain;
  const user = await call('POST', `/resources/v3alpha/users?ctx.orgId=${orgId}`, {
    human: { username: 'branded-frank', profile: { givenName: 'B', familyName: 'F' }, email: { address: 'branded-frank@example.com' }, password: PASSWORD },
  });
  if (user.status !== 201) throw new Error(`user: ${JSON.stringify(user.body)}`);
  config = await oidc.discovery(new URL(node.baseUrl), tenant.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await new Promise((resolve) => logoServer?.close(resolve));
  await node?.stop();
  node?.cleanup();
});

async function patch(path: string, body: unknown): Promise<void> {
  const response = await api(node)('PATCH', path, body);
  if (response.status !== 200) throw new Error(`${path}: ${JSON.stringify(response.body)}`);
}

async function loginUrl(scope: string): Promise<string> {
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    state: oidc.randomState(),
  });
  return url.toString();
}

// The callbacks given to evaluate run in the page; the tests are typed against Node, not the DOM
// (adding the DOM library would retype fetch bodies across the program), so the few browser
// shapes they use are declared here.
declare function getComputedStyle(element: unknown): { readonly backgroundColor: string };
interface ShownImage {
  readonly src: string;
  readonly naturalWidth: number;
}

/** What the login name page shows. */
async function looks(page: Page) {
  return {
    intro: await page.locator('main p:not(.audience)').first().textContent(),
    buttonColor: await page.locator('button[type=submit]').first().evaluate((b) => getComputedStyle(b).backgroundColor),
    logo: await page.locator('img.logo').evaluateAll((imgs) => (imgs as ShownImage[]).map((i) => ({ src: i.src, loaded: i.naturalWidth > 0 }))),
    watermark: await page.locator('footer.watermark').count(),
  };
}

describeIfMet(chromium, 'login UI with text and branding settings', () => {
  it('shows the built-in texts and look, with the watermark, before anything is set', async () => {
    const context = await browser!.newContext({ locale: 'en' });
    const page = await context.newPage();
    await page.goto(await loginUrl('openid'));
    expect(await looks(page)).toEqual({ intro: 'Enter your login name.', buttonColor: 'rgb(26, 86, 219)', logo: [], watermark: 1 });
    await context.close();
  });

  it('applies the instance settings, and an org-scoped login the org overrides', async () => {
    await patch('/settings/v3alpha/texts/en', { texts: { loginNameIntro: { set: 'Welcome to <ACME>.' } } });
    await patch('/settings/v3alpha/branding', { primaryColor: { set: '#ff0000' }, logoUrl: { set: logoUrl } });
    const context = await browser!.newContext({ locale: 'en' });
    const page = await context.newPage();
    await page.goto(await loginUrl('openid'));
    expect(await looks(page)).toEqual({ intro: 'Welcome to <ACME>.', buttonColor: 'rgb(255, 0, 0)', logo: [{ src: logoUrl, loaded: true }], watermark: 1 });

    await patch(`/settings/v3alpha/texts/en?ctx.orgId=${orgId}`, { texts: { loginNameIntro: { set: 'Welcome to the branded org.' } } });
    await patch(`/settings/v3alpha/branding?ctx.orgId=${orgId}`, { primaryColor: { set: '#00f' }, disableWatermark: { set: true }, hideLoginNameSuffix: { set: true } });
    const scope = `openid urn:platform:iam:org:id:${orgId}`;
    await page.goto(await loginUrl(scope));
    expect(await looks(page)).toEqual({ intro: 'Welcome to the branded org.', buttonColor: 'rgb(0, 0, 255)', logo: [{ src: logoUrl, loaded: true }], watermark: 0 });
    // The login name shows without its @suffix on the password page.
    await page.fill('input[name=loginName]', `branded-frank@${orgDomain}`);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=password]');
    expect(await page.locator('main p:not(.audience)').first().textContent()).toBe('branded-frank');

    // The unscoped login keeps the instance's look.
    await page.goto(await loginUrl('openid'));
    expect(await looks(page)).toMatchObject({ intro: 'Welcome to <ACME>.', buttonColor: 'rgb(255, 0, 0)', watermark: 1 });
    await page.fill('input[name=loginName]', `branded-frank@${orgDomain}`);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=password]');
    expect(await page.locator('main p:not(.audience)').first().textContent()).toBe(`branded-frank@${orgDomain}`);

    // A reset in the org shows the instance's value again at once.
    await patch(`/settings/v3alpha/branding?ctx.orgId=${orgId}`, { primaryColor: { reset: true } });
    await page.goto(await loginUrl(scope));
    expect((await looks(page)).buttonColor).toBe('rgb(255, 0, 0)');
    await context.close();
  });

  it('keeps the overridden texts per language: German uses the German catalog', async () => {
    const context = await browser!.newContext({ locale: 'de' });
    const page = await context.newPage();
    await page.goto(await loginUrl('openid'));
    expect((await looks(page)).intro).toBe('Gib deinen Loginnamen ein.');
    await patch('/settings/v3alpha/texts/de', { texts: { loginNameIntro: { set: 'Willkommen bei ACME.' } } });
    await page.goto(await loginUrl('openid'));
    expect((await looks(page)).intro).toBe('Willkommen bei ACME.');
    await context.close();
  });
});
