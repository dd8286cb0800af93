/**
 * Self-registration through the login UI (prompt=create) in Debian's Chromium: the form, a weak
 * password refused by the instance's complexity policy (no user created), a registration that
 * ends at the redirect_uri with a code openid-client exchanges (ID token sub = the new user), the
 * `sid` of the JWT access token equal to the ID token's, and the German form.
 */
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { startAuthorization, type StartedAuthorization } from './rp-library.fixture.js';
import { startCallbackServer, type CallbackServer } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

const STRONG = 'Regist3rPassword';

let node: TestNode;
let callback: CallbackServer;
let browser: TestBrowser | undefined;
let config: oidc.Configuration;

async function createJwtCodeApp(): Promise<string> {
  const call = api(node);
  const projectId: string = (await call('POST', '/resources/v3alpha/projects', { name: 'Registration' })).body.details.id;
  const app = await call('POST', '/resources/v3alpha/apps', {
    projectId,
    name: 'Registration SPA',
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [callback.redirectUri],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
    },
  });
  if (app.status !== 201) throw new Error(`app: ${JSON.stringify(app.body)}`);
  return app.body.clientId;
}

beforeAll(async () => {
  node = await startTestNode();
  callback = await startCallbackServer();
  const clientId = await createJwtCodeApp();
  config = await oidc.discovery(new URL(node.baseUrl), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

type Started = StartedAuthorization;

/** Authorization requests here ask for registration (prompt=create) unless `extra` says otherwise. */
const authorizationUrl = (extra: Record<string, string> = {}): Promise<Started> => startAuthorization(config, callback.redirectUri, { prompt: 'create', ...extra });

async function fillRegistration(page: Page, username: string, password: string): Promise<void> {
  await page.fill('input[name=username]', username);
  await page.fill('input[name=givenName]', 'Reggie');
  await page.fill('input[name=familyName]', 'Strar');
  await page.fill('input[name=email]', `${username}@example.com`);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=passwordRepeat]', password);
  await page.click('button[value="register.submit"]');
}

async function usersNamed(username: string): Promise<unknown[]> {
  const found = await api(node)('POST', '/resources/v3alpha/users/_search', [{ username: { username, method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }]);
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  return (found.body.result ?? []) as unknown[];
}

describeIfMet(chromium, 'registration in a real browser', () => {
  it('shows the registration form for prompt=create', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const response = await page.goto((await authorizationUrl()).url.toString());
    expect(response?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Register');
    for (const name of ['username', 'givenName', 'familyName', 'email', 'password', 'passwordRepeat', 'csrf', 'authRequest']) {
      expect(await page.locator(`form:has(button[value="register.submit"]) input[name=${name}]`).count(), name).toBe(1);
    }
    expect(await page.getAttribute('input[name=password]', 'type')).toBe('password');
    // The instance's password rules (the defaults: 8 characters, upper, lower, a number; no symbol).
    expect(await page.locator('ul.rules li').allTextContents()).toEqual([
      'must be at least 8 characters long',
      'must contain an uppercase letter',
      'must contain a lowercase letter',
      'must contain a number',
    ]);
    await docScreenshot(page, 'register');
    await context.close();
  });

  it('re-renders a weak password with the error and creates no user', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto((await authorizationUrl()).url.toString());
    await fillRegistration(page, 'reg-weak', 'weak');
    expect(await page.textContent('[role=alert]')).toContain('password policy');
    await docScreenshot(page, 'register-weak-password');
    expect(await page.inputValue('input[name=username]')).toBe('reg-weak'); // kept, the passwords are not
    expect(await page.inputValue('input[name=password]')).toBe('');
    expect(await usersNamed('reg-weak')).toEqual([]);
    await context.close();
  });

  it('registers, ends at the redirect_uri with a code, and the JWT access token carries the ID token’s sid', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const started = await authorizationUrl();
    const arrived = callback.next();
    await page.goto(started.url.toString());
    await fillRegistration(page, 'reg-newbie', STRONG);
    const response = await arrived;
    expect(response.params.get('state')).toBe(started.state);
    expect(response.params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await context.cookies(node.baseUrl)).some((c) => c.name === 'tessera_sessions')).toBe(true);

    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.url), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    const claims = tokens.claims()!;
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.sid).toEqual(expect.any(String));
    const user = await api(node)('GET', `/resources/v3alpha/users/${claims.sub}`);
    expect(user.status).toBe(200);
    expect(JSON.stringify(user.body)).toContain('"reg-newbie"');
    const access = decodeJwt(tokens.access_token);
    expect(access.sub).toBe(claims.sub);
    expect(access.sid).toBe(claims.sid);

    // The same username again is refused on the form.
    const again = await (await browser!.newContext({ locale: 'en-US' })).newPage();
    await again.goto((await authorizationUrl()).url.toString());
    await fillRegistration(again, 'reg-newbie', STRONG);
    expect(await again.textContent('[role=alert]')).toContain('already taken');
    await again.context().close();
    await context.close();
  });

  it('offers registration on the login name page', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto((await authorizationUrl({ prompt: 'login' })).url.toString());
    await page.click('button[value=register]');
    expect(await page.textContent('h1')).toBe('Register');
    await context.close();
  });

  it('shows the German registration page for ui_locales=de', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto((await authorizationUrl({ ui_locales: 'de' })).url.toString());
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.textContent('h1')).toBe('Registrieren');
    expect(await page.textContent('label[for=givenName]')).toBe('Vorname');
    await fillRegistration(page, 'reg-deutsch', 'schwach');
    expect(await page.textContent('[role=alert]')).toContain('Passwortrichtlinie');
    await context.close();
  });
});
