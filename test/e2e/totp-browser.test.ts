/**
 * TOTP login in a real browser (Chromium through playwright-core; the pages carry no script): a user enrolled through the users API types login name, password and then the
 * code computed here with otpauth from the returned secret; the ID token says amr pwd+otp+mfa.
 * A wrong code shows the code step again with the error (control: the right one then passes).
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
let offset = 0;

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  node = await startTestNode({ testClock: true });
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

const codeAt = (secret: string, stepsAhead = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offset + stepsAhead * 30_000 });

describeIfMet(chromium, 'TOTP login in Chromium', () => {
  it('asks for the code after the password, refuses a wrong one, and signs in with the right one (amr pwd otp mfa)', async () => {
    const call = api(node);
    const id = await createHuman(node, 'browser-totp');
    const added = await call('POST', `/resources/v3alpha/users/${id}/totp`);
    const secret: string = added.body.secret;
    expect((await call('POST', `/resources/v3alpha/users/${id}/totp/_verify`, { code: codeAt(secret) })).status).toBe(200);
    node.advanceClock(30_000);
    offset += 30_000;

    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await docScreenshot(page, 'login-name');
    await page.fill('input[name=loginName]', 'browser-totp');
    await page.click('button[value=loginname]');
    await docScreenshot(page, 'password');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[value=password]');
    await page.waitForSelector('input[name=code]');
    await docScreenshot(page, 'totp-code');
    expect(await page.locator('script').count()).toBe(0);

    const accepted = new Set([-1, 0, 1].map((s) => codeAt(secret, s)));
    let wrong = Number(codeAt(secret));
    do wrong = (wrong + 1) % 1_000_000;
    while (accepted.has(String(wrong).padStart(6, '0')));
    await page.fill('input[name=code]', String(wrong).padStart(6, '0'));
    await page.click('button[value=otp]');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    await docScreenshot(page, 'totp-code-wrong');
    expect(await page.locator('input[name=code]').count(), 'the code step again').toBe(1);

    await page.fill('input[name=code]', codeAt(secret));
    await page.click('button[value=otp]');
    const done = await arrived;
    const code = done.params.get('code') ?? '';
    const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: callback.redirectUri, code_verifier: request.verifier }),
    });
    const idToken = ((await response.json()) as { id_token: string }).id_token;
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr: string[]; acr: string };
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr, 'two factors').toBe('urn:platform:loa:2fa');
    await context.close();
  });
});
