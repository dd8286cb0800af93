/**
 * Login with OTP by SMS in a real browser (Chromium through playwright-core; the pages carry no
 * script): the phone verified by the admin and OTP by SMS added through the users API, the
 * active SMS provider a generic webhook to a local HTTP receiver. The user types login name and
 * password, the test reads the SMS body at the receiver and types its code; the ID token says
 * amr pwd+otp+mfa. A wrong code shows the code page again with the error (control: the right one
 * then passes).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const PHONE = '+491709990001';

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
let receiver: Server;
const received: { recipient: string; text: string }[] = [];

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { recipient: string; text: string });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  node = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', TESSERA_OUTBOX_POLL_MS: '200' } });
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  const call = api(node);
  const provider = await call('POST', '/resources/v3alpha/sms_providers', { generic: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms` } });
  expect((await call('POST', `/resources/v3alpha/sms_providers/${provider.body.details.id}/_activate`)).status).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  if (chromium.outcome !== 'run') return;
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function nextSms(after: number): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    // Sign-in codes only: the phone change also sends a verification code by SMS.
    const message = received.filter((m) => m.recipient === PHONE && /sign-in code is/.test(m.text))[after];
    const code = message === undefined ? undefined : /sign-in code is (\d{8})/.exec(message.text)?.[1];
    if (code !== undefined) return code;
    if (Date.now() > until) throw new Error('no SMS arrived');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeIfMet(chromium, 'OTP by SMS login in Chromium', () => {
  it('sends a code by SMS after the password, refuses a wrong one, and signs in with the right one (amr pwd otp mfa)', async () => {
    const call = api(node);
    const id = await createHuman(node, 'browser-sms');
    expect((await call('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number: PHONE } } })).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);

    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await page.fill('input[name=loginName]', 'browser-sms');
    await page.click('button[value=loginname]');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[value=password]');
    await page.waitForSelector('input[name=code]');
    expect(await page.textContent('main')).toContain('We sent a code by SMS.');
    expect(await page.locator('script').count()).toBe(0);
    await docScreenshot(page, 'otp-sms-code');
    const code = await nextSms(0);

    await page.fill('input[name=code]', code === '00000000' ? '11111111' : '00000000');
    await page.click('button[value=otp]');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    expect(await page.locator('input[name=code]').count(), 'the code page again').toBe(1);

    await page.fill('input[name=code]', code);
    await page.click('button[value=otp]');
    const done = await arrived;
    const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code: done.params.get('code') ?? '', redirect_uri: callback.redirectUri, code_verifier: request.verifier }),
    });
    const idToken = ((await response.json()) as { id_token: string }).id_token;
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr: string[] };
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    await context.close();
  });
});
