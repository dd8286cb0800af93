/**
 * Password reset in Chromium (issue 14), as a person does it: "Forgot password?" on the password
 * step, the code read from the mail a real SMTP server on 127.0.0.1 received, the new password
 * twice on the reset page (which lists the password rules), and the login goes on to the client.
 * A wrong code is refused on the page first; the old password no longer works afterwards (control:
 * the new one does).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { deliveryEnv, otherCode, startSmtpServer, type Smtp } from './contact-verification.fixture.js';
import { startTestNode, waitFor, type TestNode } from './harness.js';
import { codeRequest, logInWithFetch } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const NEW_PASSWORD = 'Brand-New-Passw0rd';

let smtp: Smtp;
let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  smtp = await startSmtpServer();
  node = await startTestNode({ env: deliveryEnv(smtp) });
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  browser = await launchBrowser();
});
afterAll(async () => {
  if (chromium.outcome !== 'run') return;
  await browser?.close();
  await callback?.close();
  await node?.stop();
  node?.cleanup();
  await smtp?.close();
});

describeIfMet(chromium, 'password reset in Chromium', () => {
  it('mails a code from "Forgot password?", refuses a wrong one, sets the new password and signs in', async () => {
    await createHuman(node, 'reset-rita');
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await page.fill('input[name=loginName]', 'reset-rita');
    await page.click('button[value=loginname]');
    await page.click('button[value="reset.request"]');
    await page.waitForSelector('input[name=code]');
    expect(await page.locator('script').count(), 'no script on the reset page').toBe(0);
    expect(await page.locator('ul.rules li').count(), 'the password rules are listed').toBeGreaterThan(0);
    await docScreenshot(page, 'password-reset');

    const mail = await waitFor('the reset mail', () => smtp.delivered.find((m) => m.to.includes('reset-rita@example.com')));
    const code = /reset code is (\d{8})/.exec(mail.raw)?.[1] ?? '';
    expect(code).toMatch(/^\d{8}$/);

    await page.fill('input[name=code]', otherCode(code));
    await page.fill('input[name=password]', NEW_PASSWORD);
    await page.fill('input[name=passwordRepeat]', NEW_PASSWORD);
    await page.click('button[value="reset.submit"]');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');

    await page.fill('input[name=code]', code);
    await page.fill('input[name=password]', NEW_PASSWORD);
    await page.fill('input[name=passwordRepeat]', NEW_PASSWORD);
    await page.click('button[value="reset.submit"]');
    const done = await arrived;
    expect(done.params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await context.close();

    // The old password is gone; the new one signs in (control).
    await expect(logInWithFetch(node, codeRequest(node, tenant.clientId, callback.redirectUri), 'reset-rita', PASSWORD)).rejects.toThrow();
    expect(await logInWithFetch(node, codeRequest(node, tenant.clientId, callback.redirectUri), 'reset-rita', NEW_PASSWORD)).toContain('code=');
  });
});
