/**
 * Enrolment of a passkey during login (issue 14; the policy's factor `u2f`) in a real browser:
 * Chromium through playwright-core with a virtual WebAuthn authenticator over CDP (ctap2,
 * internal, resident keys, user verification). The login policy forces a second factor and
 * allows only `u2f`; the user has none. After the password the enrolment page runs the login
 * UI's own script (/ui/login/passkey.js, CSP script-src 'self'; the password page before it
 * none), which creates the credential; the server verifies the attestation and adds the
 * passkey; the ID token says amr pwd+user+mfa; the next login asks for the passkey.
 * Refused with a control: a real attestation of the same authenticator for another challenge
 * than the page's, and a forged post with a made-up credential, are refused (400) and add
 * nothing; then the page's own button with the same authenticator finishes the login.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, type CodeRequest, idTokenClaimsOf } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, landedOnCallback, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const USERS = '/resources/v3alpha/users';

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

interface Device {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
}

async function newDevice(): Promise<Device> {
  const context = await browser!.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  return { context, page, cdp };
}

async function addAuthenticator(device: Device): Promise<string> {
  const { authenticatorId } = await device.cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return authenticatorId;
}

async function amrOf(request: CodeRequest, code: string): Promise<string[]> {
  return (await idTokenClaimsOf(node, tenant.clientId, callback.redirectUri, request, code)).amr;
}

async function passkeysOf(id: string): Promise<unknown[]> {
  const listed = await api(node)('GET', `${USERS}/${id}/passkeys`);
  expect(listed.status).toBe(200);
  return (listed.body.passkeys as unknown[] | undefined) ?? [];
}

async function passwordStep(page: Page, loginName: string): Promise<void> {
  await page.fill('input[name=loginName]', loginName);
  await page.click('button[value=loginname]');
  await page.fill('input[name=password]', PASSWORD);
  expect(await page.locator('script').count(), 'the password page runs no script').toBe(0);
  await page.click('button[value=password]');
}

describeIfMet(chromium, 'enrolment of a passkey during login in Chromium (virtual authenticator)', () => {
  it('forced second factor, policy allowing only u2f: creates a passkey after the password (amr pwd user mfa); an attestation for another challenge and a forged credential are refused; the next login asks for the passkey', async () => {
    const id = await createHuman(node, 'enrol-passkey');
    const set = await api(node)('PATCH', '/settings/v3alpha/login', { forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_U2F'] } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const device = await newDevice();
    const { page } = device;
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await page.fill('input[name=loginName]', 'enrol-passkey');
    await page.click('button[value=loginname]');
    await page.fill('input[name=password]', PASSWORD);
    expect(await page.locator('script').count(), 'the password page runs no script').toBe(0);
    const enrolPage = page.waitForResponse((r) => r.url().includes('/ui/login/login?') && r.request().method() === 'GET');
    await page.click('button[value=password]');
    const shown = await enrolPage;
    await page.waitForSelector('form[data-passkey-create-options]');
    expect((await shown.allHeaders())['content-security-policy']).toContain("script-src 'self'");
    expect(await page.locator('script[src="/ui/login/passkey.js"]').count()).toBe(1);
    expect(await page.locator('input[name=code]').count(), 'no code factor allowed by the policy').toBe(0);
    const options = JSON.parse((await page.locator('form[data-passkey-create-options]').getAttribute('data-passkey-create-options'))!) as { rp: { id: string } };
    expect(options.rp.id).toBe(new URL(node.baseUrl).hostname);
    await docScreenshot(page, 'mfa-enrol-passkey');

    // A real attestation of the device for another challenge than the page's: refused (400), nothing added.
    await addAuthenticator(device);
    const otherChallenge = await page.evaluate(async () => {
      const { document, navigator, FormData, fetch, crypto } = globalThis as any;
      const form = document.querySelector('form[data-passkey-create-options]');
      const o = JSON.parse(form.dataset.passkeyCreateOptions);
      const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const b64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const credential = await navigator.credentials.create({
        publicKey: { ...o, challenge: crypto.getRandomValues(new Uint8Array(32)), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: [] },
      });
      const r = credential.response;
      const body = new URLSearchParams(new FormData(form));
      body.set('credential', JSON.stringify({
        id: credential.id, rawId: b64(credential.rawId), type: credential.type, clientExtensionResults: {},
        response: { clientDataJSON: b64(r.clientDataJSON), attestationObject: b64(r.attestationObject), transports: r.getTransports() },
      }));
      const answer = await fetch(form.getAttribute('action'), { method: 'POST', body });
      return { status: answer.status as number, text: (await answer.text()) as string };
    });
    expect(otherChallenge.status).toBe(400);
    expect(otherChallenge.text).toContain('The passkey could not be used');
    expect(await passkeysOf(id)).toEqual([]);

    // A forged post with a made-up credential: 400, nothing added.
    await page.reload();
    await page.waitForSelector('form[data-passkey-create-options]');
    const forged = await page.evaluate(async (credential: string) => {
      const { document, FormData, fetch } = globalThis as any;
      const form = document.querySelector('form[data-passkey-create-options]');
      const body = new URLSearchParams(new FormData(form));
      body.set('credential', credential);
      return (await fetch(form.getAttribute('action'), { method: 'POST', body })).status as number;
    }, JSON.stringify({ id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', attestationObject: 'oA' } }));
    expect(forged).toBe(400);
    expect(await passkeysOf(id)).toEqual([]);

    // Control: with an authenticator the same page creates the passkey and finishes the login.
    await page.reload();
    await page.waitForSelector('form[data-passkey-create-options]');
    await page.click('button[value="mfa.enrol"]');
    const done = await arrived;
    await landedOnCallback(page, callback);
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'user', 'mfa']);
    expect(await passkeysOf(id)).toEqual([expect.objectContaining({ name: 'Passkey', transports: ['internal'] })]);

    // The next login asks for the passkey (the second-factor page), no enrolment.
    const nextRequest = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' });
    const nextArrived = callback.next();
    await page.goto(nextRequest.url.toString());
    await passwordStep(page, 'enrol-passkey');
    await page.waitForSelector('button[value=passkey]');
    expect(await page.locator('form[data-passkey-create-options]').count(), 'no enrolment page').toBe(0);
    await page.click('button[value=passkey]');
    const nextDone = await nextArrived;
    expect(await amrOf(nextRequest, nextDone.params.get('code') ?? '')).toEqual(['pwd', 'user', 'mfa']);
    await device.context.close();
  });
});
