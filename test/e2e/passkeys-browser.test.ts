/**
 * Passkeys in a real browser (#14), on LMDB and on PostgreSQL: Chromium through playwright-core with a virtual WebAuthn
 * authenticator over CDP (ctap2, internal, resident keys, user verification). A passkey is
 * enrolled through the users API (options from StartPasskeyRegistration, navigator.credentials
 * .create in a page of the instance origin, the answer to VerifyPasskeyRegistration), then:
 * - passwordless login through an authorization code flow ("Sign in with a passkey" on the login
 *   name page): the ID token says amr user+mfa; only the passkey page loads a script (CSP
 *   script-src 'self'), the login name page none; the export (with passwords and OTP secrets)
 *   carries the user but nothing of the passkey (seed 001);
 * - the passkey as second factor after the password: amr pwd+user+mfa; with a TOTP as well the
 *   page offers both and the code alone finishes (amr pwd+otp+mfa);
 * - another user's passkey cannot sign in as the first at the second-factor step (control: the
 *   user's own passkey with the same page change signs in);
 * - a cloned authenticator (same private key, older signature counter) is refused (controls: the
 *   original authenticator, whose counter grew, signs in again, and so does a copy whose counter
 *   is ahead of the stored one);
 * - registration challenges are single-use and expire after 5 minutes on the node's clock
 *   (control: a fresh one verifies).
 */
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CHROMIUM, describeIfMet, itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, idTokenClaimsOf, type CodeRequest } from './login-flow.fixture.js';
import { createCredential, enrolPasskey, newDevice, type Device } from './passkey-device.fixture.js';
import { createFlowTenant, createHuman, landedOnCallback, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const BASE = '/resources/v3alpha/users';

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
/** What advanceClock added to the node's clock. */
let clockOffset = 0;

const stores = [
  { name: 'LMDB', env: undefined as Record<string, string> | undefined, verdict: UNCONDITIONAL as Verdict },
  { name: 'PostgreSQL', env: { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: freshSchemaName(), TESSERA_MASTERKEY: 'e'.repeat(64) }, verdict: await meet(POSTGRES) },
];

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  callback = await startCallbackServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  if (chromium.outcome !== 'run') return;
  await browser?.close();
  await callback.close();
});

function idTokenClaims(request: CodeRequest, code: string): Promise<{ amr: string[]; sid: string }> {
  return idTokenClaimsOf(node, tenant.clientId, callback.redirectUri, request, code);
}

async function idTokenAmr(request: CodeRequest, code: string): Promise<string[]> {
  return (await idTokenClaims(request, code)).amr;
}

/** After the passkey button: the code the client got, or undefined when the page showed an error. */
async function outcomeOf(page: Page): Promise<string | undefined> {
  const landed = page.waitForURL((url) => url.href.startsWith(callback.redirectUri)).then(() => new URL(page.url()).searchParams.get('code') ?? '');
  const refused = page.waitForSelector('p.error').then(() => undefined);
  return Promise.race([landed, refused]);
}

/** Passwordless: "Sign in with a passkey" on the login name page, then the passkey page's button. */
async function passwordless(device: Device): Promise<{ request: CodeRequest; code: string | undefined; page: Page }> {
  const { page } = device;
  // prompt=login: the browser may hold a session from an earlier login.
  const request = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' });
  await page.goto(request.url.toString());
  await page.click('button[value="passkey.start"]');
  await page.waitForSelector('button[value=passkey]');
  await page.click('button[value=passkey]');
  return { request, code: await outcomeOf(page), page };
}

describeIfMet(chromium, 'Passkeys in Chromium (virtual authenticator)', () => {
  describe.each(stores)('$name', ({ env, verdict }) => {
    beforeAll(async () => {
      if (verdict.outcome !== 'run') return;
      node = await startTestNode({ testClock: true, ...(env === undefined ? {} : { env }) });
      tenant = await createFlowTenant(node, callback.redirectUri);
      clockOffset = 0;
    });
    afterAll(async () => {
      if (verdict.outcome !== 'run') return;
      await node.stop();
      node.cleanup();
      if (env !== undefined) await dropSchema(env.TESSERA_DATABASE_SCHEMA ?? '');
    });

    itIfMet(verdict, 'enrols through the API and signs in without a password (amr user mfa); only the passkey page runs a script', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-passwordless');
      const passkeyId = await enrolPasskey(node, device, id, 'My laptop');
      const listed = await api(node)('GET', `${BASE}/${id}/passkeys`);
      expect(listed.body.passkeys).toEqual([expect.objectContaining({ id: passkeyId, name: 'My laptop', transports: ['internal'] })]);
      expect(listed.body.passkeys[0].lastUsedDate).toBeUndefined();

      const { page } = device;
      const request = codeRequest(node, tenant.clientId, callback.redirectUri);
      const arrived = callback.next();
      const first = await page.goto(request.url.toString());
      expect(await page.locator('script').count(), 'the login name page runs no script').toBe(0);
      expect(first?.headers()['content-security-policy']).toContain("script-src 'none'");
      const passkeyPage = page.waitForResponse((r) => r.url().includes('/ui/login/login?') && r.request().method() === 'GET');
      await page.click('button[value="passkey.start"]');
      const shown = await passkeyPage;
      await page.waitForSelector('button[value=passkey]');
      expect(await page.locator('script[src="/ui/login/passkey.js"]').count()).toBe(1);
      await docScreenshot(page, 'passkey');
      expect((await shown.allHeaders())['content-security-policy']).toContain("script-src 'self'");
      await page.click('button[value=passkey]');
      const done = await arrived;
      await landedOnCallback(page, callback);
      const claims = await idTokenClaims(request, done.params.get('code') ?? '');
      expect(claims.amr).toEqual(['user', 'mfa']);
      const session = await api(node)('GET', `/resources/v3alpha/sessions/${claims.sid}`);
      expect(session.body.session.factors.webAuthN).toEqual({ verifiedAt: expect.any(String), userVerified: true });
      expect(session.body.session.factors.password).toBeUndefined();
      const used = await api(node)('GET', `${BASE}/${id}/passkeys`);
      expect(used.body.passkeys[0].lastUsedDate).toBeDefined();

      // Seed 001: passwordless authentication is not exported — not even with passwords and OTP secrets.
      const [stored] = (await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId })).credentials;
      const exported = await api(node)('POST', '/admin/v1/export', { with_passwords: true, with_otp: true, response_output: true });
      expect(exported.status).toBe(200);
      const text = JSON.stringify(exported.body);
      expect(text, 'the user is exported').toContain('pk-passwordless');
      expect(text).not.toContain(Buffer.from(stored!.credentialId, 'base64').toString('base64url'));
      expect(text.toLowerCase()).not.toContain('passkey');
      await device.context.close();
    });

    itIfMet(verdict, 'asks for the passkey after the password (amr pwd user mfa)', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-second');
      await enrolPasskey(node, device, id);
      const { page } = device;
      const request = codeRequest(node, tenant.clientId, callback.redirectUri);
      const arrived = callback.next();
      await page.goto(request.url.toString());
      await page.fill('input[name=loginName]', 'pk-second');
      await page.click('button[value=loginname]');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[value=password]');
      await page.waitForSelector('button[value=passkey]');
      expect(await page.locator('input[name=code]').count(), 'no TOTP form without a TOTP').toBe(0);
      await docScreenshot(page, 'passkey-second-factor');
      await page.click('button[value=passkey]');
      const done = await arrived;
      await landedOnCallback(page, callback);
      expect(await idTokenAmr(request, done.params.get('code') ?? '')).toEqual(['pwd', 'user', 'mfa']);
      await device.context.close();
    });

    itIfMet(verdict, 'offers the TOTP code beside the passkey when the user has both; the code alone finishes (amr pwd otp mfa)', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-both');
      const call = api(node);
      const added = await call('POST', `${BASE}/${id}/totp`);
      const secret: string = added.body.secret;
      const codeAt = (offsetMs: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetMs });
      expect((await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(clockOffset) })).status).toBe(200);
      node.advanceClock(30_000); // the enrolment used this step's code
      clockOffset += 30_000;
      await enrolPasskey(node, device, id);
      const { page } = device;
      const request = codeRequest(node, tenant.clientId, callback.redirectUri);
      await page.goto(request.url.toString());
      await page.fill('input[name=loginName]', 'pk-both');
      await page.click('button[value=loginname]');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[value=password]');
      await page.waitForSelector('button[value=passkey]');
      expect(await page.locator('input[name=code]').count(), 'the TOTP form beside the passkey').toBe(1);
      await page.fill('input[name=code]', codeAt(clockOffset));
      await page.click('button[value=otp]');
      const code = await outcomeOf(page);
      expect(code).toBeDefined();
      expect(await idTokenAmr(request, code ?? '')).toEqual(['pwd', 'otp', 'mfa']);
      await device.context.close();
    });

    itIfMet(verdict, 'lets a user with TOTP and a passkey choose the passkey on the code page instead (amr pwd user mfa)', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-choose');
      const call = api(node);
      const added = await call('POST', `${BASE}/${id}/totp`);
      const secret: string = added.body.secret;
      const codeAt = (offsetMs: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetMs });
      expect((await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(clockOffset) })).status).toBe(200);
      await enrolPasskey(node, device, id);
      const { page } = device;
      const request = codeRequest(node, tenant.clientId, callback.redirectUri);
      const arrived = callback.next();
      await page.goto(request.url.toString());
      await page.fill('input[name=loginName]', 'pk-choose');
      await page.click('button[value=loginname]');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[value=password]');
      await page.waitForSelector('button[value=passkey]');
      // The code page of the TOTP factor, with the passkey as the other choice.
      expect(await page.locator('input[name=code]').count(), 'the TOTP code field').toBe(1);
      await page.click('button[value=passkey]');
      const done = await arrived;
      await landedOnCallback(page, callback);
      expect(await idTokenAmr(request, done.params.get('code') ?? '')).toEqual(['pwd', 'user', 'mfa']);
      await device.context.close();
    });

    itIfMet(verdict, "refuses another user's passkey at the second factor (control: the user's own passkey)", async () => {
      const mine = await newDevice(browser!, node);
      const theirs = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-victim');
      const otherId = await createHuman(node, 'pk-attacker');
      await enrolPasskey(node, mine, id);
      await enrolPasskey(node, theirs, otherId);

      /** Password of pk-victim, then the passkey button with the allow list dropped (any discoverable passkey answers). */
      const attempt = async (device: Device) => {
        const { page } = device;
        const request = codeRequest(node, tenant.clientId, callback.redirectUri);
        await page.goto(request.url.toString());
        await page.fill('input[name=loginName]', 'pk-victim');
        await page.click('button[value=loginname]');
        await page.fill('input[name=password]', PASSWORD);
        await page.click('button[value=password]');
        await page.waitForSelector('button[value=passkey]');
        await page.evaluate(() => {
          const form = (globalThis as any).document.querySelector('form[data-passkey-options]');
          const options = JSON.parse(form.dataset.passkeyOptions ?? '{}');
          delete options.allowCredentials;
          form.dataset.passkeyOptions = JSON.stringify(options);
        });
        await page.click('button[value=passkey]');
        return { request, code: await outcomeOf(page) };
      };

      const refused = await attempt(theirs);
      expect(refused.code).toBeUndefined();
      expect(await theirs.page.textContent('p.error')).toContain('The passkey could not be used');
      const accepted = await attempt(mine);
      expect(accepted.code).toBeDefined();
      expect(await idTokenAmr(accepted.request, accepted.code ?? '')).toEqual(['pwd', 'user', 'mfa']);
      await mine.context.close();
      await theirs.context.close();
    });

    itIfMet(verdict, 'refuses a cloned authenticator whose signature counter is behind (control: the original signs in again)', async () => {
      const original = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-clone');
      await enrolPasskey(node, original, id);
      const first = await passwordless(original);
      expect(first.code).toBeDefined();
      const { credentials } = await original.cdp.send('WebAuthn.getCredentials', { authenticatorId: original.authenticatorId });
      expect(credentials).toHaveLength(1);
      const credential = credentials[0]!;
      expect(credential.signCount).toBeGreaterThan(0);

      // Control: the original authenticator's counter grew, so it signs in again.
      const again = await passwordless(original);
      expect(again.code).toBeDefined();
      expect(await idTokenAmr(again.request, again.code ?? '')).toEqual(['user', 'mfa']);

      // The clone: the same private key in another authenticator, its counter from before.
      const clone = await newDevice(browser!, node);
      await clone.cdp.send('WebAuthn.addCredential', { authenticatorId: clone.authenticatorId, credential: { ...credential, signCount: 0 } });
      const cloned = await passwordless(clone);
      expect(cloned.code).toBeUndefined();
      expect(await cloned.page.textContent('p.error')).toContain('The passkey could not be used');

      // Control for the clone itself: with a counter ahead of the stored one the same key is accepted,
      // so the refusal above was the counter's.
      const ahead = await newDevice(browser!, node);
      await ahead.cdp.send('WebAuthn.addCredential', { authenticatorId: ahead.authenticatorId, credential: { ...credential, signCount: credential.signCount + 100 } });
      expect((await passwordless(ahead)).code).toBeDefined();
      await original.context.close();
      await clone.context.close();
      await ahead.context.close();
    });

    itIfMet(verdict, 'accepts a registration challenge once and only for 5 minutes (control: a fresh one verifies)', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pk-challenge');
      const call = api(node);

      const stale = await call('POST', `${BASE}/${id}/passkeys`);
      const staleCredential = await createCredential(device.page, stale.body.publicKeyCredentialCreationOptions);
      node.advanceClock(5 * 60_000 + 1000);
      clockOffset += 5 * 60_000 + 1000;
      const expired = await call('POST', `${BASE}/${id}/passkeys/${stale.body.passkeyId}/_verify`, { publicKeyCredential: staleCredential, name: 'late' });
      expect(expired.status).toBe(404);
      expect(expired.body.message).toContain('no pending passkey registration');

      const fresh = await call('POST', `${BASE}/${id}/passkeys`);
      const credential = await createCredential(device.page, fresh.body.publicKeyCredentialCreationOptions);
      const verified = await call('POST', `${BASE}/${id}/passkeys/${fresh.body.passkeyId}/_verify`, { publicKeyCredential: credential, name: 'on time' });
      expect(verified.status).toBe(200);
      const reused = await call('POST', `${BASE}/${id}/passkeys/${fresh.body.passkeyId}/_verify`, { publicKeyCredential: credential, name: 'twice' });
      expect(reused.status).toBe(404);
      const listed = await call('GET', `${BASE}/${id}/passkeys`);
      expect(listed.body.passkeys.map((p: { name: string }) => p.name)).toEqual(['on time']);
      await device.context.close();
    });
  });
});
