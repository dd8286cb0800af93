/**
 * The login policy in a real browser (Chromium through playwright-core; the pages carry no
 * script), issue 14 "Login policy settings" / "Enrolment during login":
 * - forceMfa: a user without a second factor is led from the password to the TOTP enrolment
 *   page (QR code as server-rendered SVG, the key as text); the test reads the key from the
 *   page, computes the code with otpauth, a wrong code first (refused, the page again), then
 *   the right one finishes the login: the ID token's amr is pwd+otp+mfa. Control: without
 *   forceMfa the same kind of user signs in with the password alone (amr pwd).
 *   A self-registered user under forceMfa sets up TOTP before the first session too.
 * - allowRegister=false: no register button, prompt=create and a forged register post are
 *   refused (403) with the message; control: allowed → the button and the form are there.
 * - allowUsernamePassword=false: the login name step does not lead to a password field, and a
 *   forged password post is refused (403); control: allowed → the password field.
 * - allowExternalIdp=false: the external start route refuses (403, the policy's message;
 *   control: allowed → the IdP check answers instead). hidePasswordReset: a forged reset post is
 *   refused (403; control: not hidden → the page answers 200).
 */
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, type CodeRequest, idTokenClaimsOf } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const L = '/settings/v3alpha/login';

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  node = await startTestNode();
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  browser = await launchBrowser();
});
afterAll(async () => {
  if (chromium.outcome !== 'run') return;
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

async function setPolicy(settings: object): Promise<void> {
  const response = await api(node)('PATCH', L, settings);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

const codeAt = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() });

async function amrOf(request: CodeRequest, code: string): Promise<string[]> {
  return (await idTokenClaimsOf(node, tenant.clientId, callback.redirectUri, request, code)).amr;
}

async function passwordStep(page: Page, loginName: string): Promise<void> {
  await page.fill('input[name=loginName]', loginName);
  await page.click('button[value=loginname]');
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[value=password]');
}

/** Posts the page's first form with another `action` (a request the page does not offer). */
async function forgeAction(page: Page, action: string) {
  const response = page.waitForResponse((r) => r.request().method() === 'POST');
  const form = page.locator('form').first();
  await form.locator('input[name=action]').evaluate((el, value) => ((el as unknown as { value: string }).value = value), action);
  // The form's own required fields get a value so the browser submits it.
  for (const input of await form.locator('input[required]').all()) await input.fill('forged');
  await form.locator('button[type=submit]').click();
  return response;
}

describeIfMet(chromium, 'login policy in Chromium', () => {
  it('forceMfa: a user without a second factor sets up TOTP right after the password (QR as SVG, key as text); amr pwd otp mfa', async () => {
    await createHuman(node, 'enrol-me');
    await setPolicy({ forceMfa: true });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await passwordStep(page, 'enrol-me');
    await page.waitForSelector('#totp-secret');
    await docScreenshot(page, 'mfa-enrol-totp');
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('figure.qr svg').count(), 'the QR code is inline SVG').toBe(1);
    const secret = (await page.textContent('#totp-secret'))!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    const right = codeAt(secret);
    await page.fill('input[name=code]', right === '000000' ? '000001' : '000000');
    await page.click('button[value="mfa.enrol"]');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    expect((await page.textContent('#totp-secret'))!.replace(/\s/g, ''), 'the same key again').toBe(secret);

    await page.fill('input[name=code]', codeAt(secret));
    await page.click('button[value="mfa.enrol"]');
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    await context.close();

    // The enrolment is the user's verified TOTP: the next login asks for the code (no enrolment page).
    const again = await browser!.newContext();
    const next = await again.newPage();
    await next.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await passwordStep(next, 'enrol-me');
    await next.waitForSelector('input[name=code]');
    expect(await next.locator('#totp-secret').count()).toBe(0);
    await again.close();
  });

  it('control: without forceMfa a user without a second factor signs in with the password alone (amr pwd)', async () => {
    await setPolicy({ forceMfa: false });
    await createHuman(node, 'no-mfa');
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await passwordStep(page, 'no-mfa');
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd']);
    await context.close();
  });

  it('allowRegister=false: no register button, prompt=create and a forged register post refused; control: allowed', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    expect(await page.locator('button[value=register]').count(), 'control: offered by default').toBe(1);
    const created = await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'create' }).url.toString());
    expect(created?.status()).toBe(200);
    expect(await page.locator('input[name=username]').count(), 'control: the registration form').toBe(1);

    await setPolicy({ allowRegister: false });
    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await page.waitForSelector('input[name=loginName]');
    expect(await page.locator('button[value=register]').count()).toBe(0);
    await docScreenshot(page, 'login-name-no-register');
    const forged = await forgeAction(page, 'register');
    expect(forged.status()).toBe(403);
    expect(await page.textContent('p.error')).toContain('Self-registration is turned off');

    const refused = await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'create' }).url.toString());
    expect(refused?.status()).toBe(403);
    expect(await page.textContent('p.error')).toContain('Self-registration is turned off');
    expect(await page.locator('input[name=username]').count()).toBe(0);
    // The way back: "Use another account" leads to the login name page.
    await page.click('button[value=other]');
    await page.waitForSelector('input[name=loginName]');
    await setPolicy({ allowRegister: true });
    await context.close();
  });

  it('allowUsernamePassword=false: no password step, a forged password post refused; control: allowed', async () => {
    await createHuman(node, 'no-password-step');
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await page.fill('input[name=loginName]', 'no-password-step');
    await page.click('button[value=loginname]');
    await page.waitForSelector('input[name=password]');

    await setPolicy({ allowUsernamePassword: false });
    const forged = await forgeAction(page, 'password');
    expect(forged.status()).toBe(403);
    expect(await page.textContent('p.error')).toContain('Sign-in with a password is turned off');

    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await page.fill('input[name=loginName]', 'no-password-step');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.click('button[value=loginname]');
    expect((await answer).status()).toBe(400);
    expect(await page.textContent('p.error')).toContain('Sign-in with a password is turned off');
    expect(await page.locator('input[name=password]').count()).toBe(0);
    await docScreenshot(page, 'login-name-no-password');
    await setPolicy({ allowUsernamePassword: true });
    await context.close();
  });

  it('allowExternalIdp=false: the external start route refuses; hidePasswordReset: the reset post is refused; controls', async () => {
    await createHuman(node, 'policy-gates');
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    const authRequest = await page.locator('input[name=authRequest]').first().inputValue();
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const start = `${node.baseUrl}/ui/login/external/start?authRequest=${authRequest}&csrf=${encodeURIComponent(csrf)}&idp=no-such-idp`;
    const control = await page.goto(start);
    expect(control?.status()).toBe(403);
    expect(await page.textContent('p.error'), 'control: the IdP check answers').not.toContain('turned off');
    await setPolicy({ allowExternalIdp: false });
    const refused = await page.goto(start);
    expect(refused?.status()).toBe(403);
    expect(await page.textContent('p.error')).toContain('Sign-in with an identity provider is turned off');
    await setPolicy({ allowExternalIdp: true });

    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await page.fill('input[name=loginName]', 'policy-gates');
    await page.click('button[value=loginname]');
    await page.waitForSelector('input[name=password]');
    expect((await forgeAction(page, 'reset.request')).status(), 'control: not hidden').toBe(200);
    await setPolicy({ hidePasswordReset: true });
    const hidden = await forgeAction(page, 'reset.request');
    expect(hidden.status()).toBe(403);
    expect(await page.textContent('p.error')).toContain('Password reset is turned off');
    await setPolicy({ hidePasswordReset: false });
    await context.close();
  });

  it('forceMfa: a self-registered user sets up TOTP before the first session (amr pwd otp mfa)', async () => {
    await setPolicy({ forceMfa: true });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'create' });
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await page.fill('input[name=username]', 'registered-enrols');
    await page.fill('input[name=givenName]', 'Reg');
    await page.fill('input[name=familyName]', 'Istered');
    await page.fill('input[name=email]', 'registered-enrols@example.com');
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=passwordRepeat]', PASSWORD);
    await page.click('button[value="register.submit"]');
    await page.waitForSelector('#totp-secret');
    const secret = (await page.textContent('#totp-secret'))!.replace(/\s/g, '');
    await page.fill('input[name=code]', codeAt(secret));
    await page.click('button[value="mfa.enrol"]');
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    await setPolicy({ forceMfa: false });
    await context.close();
  });
});
