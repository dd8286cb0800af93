/**
 * The login policy's factor rules enforced by the login (#14), in Chromium (playwright-core,
 * virtual WebAuthn authenticator over CDP), on LMDB and on PostgreSQL. Each rule with its
 * positive control:
 * - secondFactors: a TOTP code is asked for and accepted only while `totp` is allowed — a code
 *   posted after the policy dropped TOTP is refused like a wrong code (control: allowed again,
 *   the same code finishes, amr pwd otp mfa); a user whose only factor is disallowed signs in
 *   with the password alone (amr pwd) and that session is reused (control: TOTP allowed again →
 *   not reused); under forceMfa such a user is led to the enrolment of an
 *   allowed factor and the disallowed passkey is not offered (control: u2f allowed → the passkey
 *   after the password, amr pwd user mfa); a passkey posted at the code step after the policy
 *   dropped `u2f` is refused (control: allowed again → accepted).
 * - passwordlessAllowed=false: no "Sign in with a passkey", a forged `passkey.start` and a
 *   passkey posted on the passkey page are refused (403, the policy's message); the passkey as
 *   second factor still works (control: allowed → passwordless, amr user mfa).
 * - multiFactors without `passkey`: a passwordless login is one factor (amr user); with forced
 *   MFA the code of the user's allowed factor follows (amr otp user mfa), and a user with no
 *   code factor is sent to set one up with the password (control: with `passkey` the passkey
 *   alone satisfies forced MFA, amr user mfa); a passkey-only session is reused under forced MFA
 *   only while it counts (controls: counted → reused; not forced → reused).
 */
import { Secret, TOTP } from 'otpauth';
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CHROMIUM, describeIfMet, itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, type CodeRequest, idTokenClaimsOf } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';
import { enrolPasskey, newDevice, type Device } from './passkey-device.fixture.js';

const chromium = await meet(CHROMIUM);
const L = '/settings/v3alpha/login';
const ALL_SECOND = ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_U2F', 'SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS'];
const DEFAULTS = {
  forceMfa: false,
  forceMfaLocalOnly: false,
  secondFactors: { value: ALL_SECOND },
  multiFactors: { value: ['MULTI_FACTOR_TYPE_PASSKEY'] },
  passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
};

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

async function setPolicy(settings: object): Promise<void> {
  const response = await api(node)('PATCH', L, { ...DEFAULTS, ...settings });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

/** A verified TOTP of the user; the code function follows the node's clock. */
async function addTotp(userId: string): Promise<() => string> {
  const call = api(node);
  const added = await call('POST', `/resources/v3alpha/users/${userId}/totp`);
  const totp = new TOTP({ secret: Secret.fromBase32(added.body.secret as string) });
  const codeNow = () => totp.generate({ timestamp: Date.now() + clockOffset });
  expect((await call('POST', `/resources/v3alpha/users/${userId}/totp/_verify`, { code: codeNow() })).status).toBe(200);
  // The enrolment used this step's code.
  node.advanceClock(30_000);
  clockOffset += 30_000;
  return codeNow;
}

async function amrOf(request: CodeRequest, code: string): Promise<string[]> {
  return (await idTokenClaimsOf(node, tenant.clientId, callback.redirectUri, request, code)).amr;
}

/** The code the client got, or undefined when the page showed an error. */
async function outcomeOf(page: Page): Promise<string | undefined> {
  const landed = page.waitForURL((url) => url.href.startsWith(callback.redirectUri)).then(() => new URL(page.url()).searchParams.get('code') ?? '');
  const refused = page.waitForSelector('p.error').then(() => undefined);
  return Promise.race([landed, refused]);
}

/** A new login (prompt=login) up to the password; the request. */
async function passwordStep(page: Page, loginName: string): Promise<CodeRequest> {
  const request = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' });
  await page.goto(request.url.toString());
  await page.fill('input[name=loginName]', loginName);
  await page.click('button[value=loginname]');
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[value=password]');
  return request;
}

/** A new login with "Sign in with a passkey", then the passkey page's button. */
async function passwordless(device: Device): Promise<{ request: CodeRequest; code: string | undefined }> {
  const { page } = device;
  const request = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' });
  await page.goto(request.url.toString());
  await page.click('button[value="passkey.start"]');
  await page.waitForSelector('button[value=passkey]');
  await page.click('button[value=passkey]');
  return { request, code: await outcomeOf(page) };
}

/** Clicks a button and returns the response of the POST it sends. */
async function post(page: Page, selector: string): Promise<Response> {
  const response = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/ui/login/login'));
  await page.click(selector);
  return response;
}

/** A new request without prompt: 'reused' when it finishes on the browser's session, 'asked' for the login name page. */
async function reusedOrAsked(page: Page): Promise<'reused' | 'asked'> {
  const request = codeRequest(node, tenant.clientId, callback.redirectUri);
  // Away from the redirect URI first: waitForURL would match the page's current URL at once.
  await page.goto('about:blank');
  const landed = page.waitForURL((url) => url.href.startsWith(callback.redirectUri)).then(() => 'reused' as const);
  const asked = page.waitForSelector('input[name=loginName]').then(() => 'asked' as const);
  await page.goto(request.url.toString());
  return Promise.race([landed, asked]);
}

/** The current login page again (GET), e.g. after the policy changed. */
async function reload(page: Page): Promise<void> {
  const authRequest = await page.locator('input[name=authRequest]').first().getAttribute('value');
  await page.goto(`${node.baseUrl}/ui/login/login?authRequest=${authRequest}`);
}

describeIfMet(chromium, 'login policy factors in Chromium', () => {
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

    itIfMet(verdict, 'secondFactors without totp: the code page is not offered and a TOTP code is refused; control: allowed → asked and accepted', async () => {
      const id = await createHuman(node, 'sf-totp');
      const codeNow = await addTotp(id);
      await setPolicy({});
      const context = await browser!.newContext();
      const page = await context.newPage();

      const request = await passwordStep(page, 'sf-totp');
      await page.waitForSelector('input[name=code]');
      // The policy drops TOTP while the code page is open: the right code is refused like a wrong one.
      await setPolicy({ secondFactors: { value: ['SECOND_FACTOR_TYPE_U2F', 'SECOND_FACTOR_TYPE_OTP_EMAIL'] } });
      await page.fill('input[name=code]', codeNow());
      const refused = await post(page, 'button[value=otp]');
      expect(refused.status()).toBe(400);
      expect(await page.textContent('p.error')).toContain('The code is wrong');
      // Control: allowed again, the same (unchecked) code finishes the login.
      await setPolicy({});
      await page.fill('input[name=code]', codeNow());
      await page.click('button[value=otp]');
      const code = await outcomeOf(page);
      expect(code).toBeDefined();
      expect(await amrOf(request, code ?? '')).toEqual(['pwd', 'otp', 'mfa']);

      // Disallowed and not forced: the user counts as having no second factor — the password alone.
      await context.close();
      await setPolicy({ secondFactors: { value: ['SECOND_FACTOR_TYPE_OTP_SMS'] } });
      const fresh = await browser!.newContext();
      const next = await fresh.newPage();
      const again = await passwordStep(next, 'sf-totp');
      const direct = await outcomeOf(next);
      expect(direct, 'no code page').toBeDefined();
      expect(await amrOf(again, direct ?? '')).toEqual(['pwd']);
      // Its password-only session is reused while TOTP stays disallowed; control: allowed again → not reused.
      expect(await reusedOrAsked(next), 'reused').toBe('reused');
      await setPolicy({});
      expect(await reusedOrAsked(next), 'TOTP allowed again: asked').toBe('asked');
      await fresh.close();
    });

    itIfMet(verdict, 'forceMfa with only a disallowed factor (passkey, u2f off): enrolment of an allowed factor, no passkey; control: u2f allowed → the passkey', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'sf-pk');
      await enrolPasskey(node, device, id);
      const { page } = device;

      await setPolicy({ forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP'] } });
      await passwordStep(page, 'sf-pk');
      await page.waitForSelector('#totp-secret');
      expect(await page.locator('button[value=passkey]').count(), 'the disallowed passkey is not offered').toBe(0);

      await setPolicy({ forceMfa: true });
      const request = await passwordStep(page, 'sf-pk');
      await page.waitForSelector('button[value=passkey]');
      expect(await page.locator('#totp-secret').count(), 'control: no enrolment').toBe(0);
      await page.click('button[value=passkey]');
      const code = await outcomeOf(page);
      expect(code).toBeDefined();
      expect(await amrOf(request, code ?? '')).toEqual(['pwd', 'user', 'mfa']);
      await setPolicy({});
      await device.context.close();
    });

    itIfMet(verdict, 'secondFactors without u2f: a passkey posted at the code step is refused and no longer offered; control: allowed → accepted', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'sf-u2f');
      await addTotp(id);
      await enrolPasskey(node, device, id);
      const { page } = device;
      await setPolicy({});

      const request = await passwordStep(page, 'sf-u2f');
      await page.waitForSelector('button[value=passkey]');
      await setPolicy({ secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP'] } });
      const refused = await post(page, 'button[value=passkey]');
      expect(refused.status()).toBe(400);
      expect(await page.textContent('p.error')).toContain('The passkey could not be used');
      expect(await page.locator('input[name=code]').count(), 'the TOTP code page').toBe(1);
      expect(await page.locator('button[value=passkey]').count(), 'the passkey no longer offered').toBe(0);

      await setPolicy({});
      await reload(page);
      await page.waitForSelector('button[value=passkey]');
      await page.click('button[value=passkey]');
      const code = await outcomeOf(page);
      expect(code).toBeDefined();
      expect(await amrOf(request, code ?? '')).toEqual(['pwd', 'user', 'mfa']);
      await device.context.close();
    });

    itIfMet(verdict, 'passwordlessAllowed=false: no passkey button, passkey.start and a passkey post refused (403); the passkey as second factor works; control: allowed', async () => {
      const device = await newDevice(browser!, node);
      const id = await createHuman(node, 'pl-off');
      await enrolPasskey(node, device, id);
      const { page } = device;
      await setPolicy({});

      // Control: offered, and the passkey page opens.
      await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' }).url.toString());
      expect(await page.locator('button[value="passkey.start"]').count()).toBe(1);
      await page.click('button[value="passkey.start"]');
      await page.waitForSelector('button[value=passkey]');
      // Turned off while the passkey page is open: the posted passkey is refused.
      await setPolicy({ passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED' });
      const posted = await post(page, 'button[value=passkey]');
      expect(posted.status()).toBe(403);
      expect(await page.textContent('p.error')).toContain('Sign-in with a passkey alone is turned off here');

      await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' }).url.toString());
      await page.waitForSelector('input[name=loginName]');
      expect(await page.locator('button[value="passkey.start"]').count()).toBe(0);
      // A forged "Sign in with a passkey".
      const forged = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.locator('form').first().locator('input[name=action]').evaluate((el) => ((el as unknown as { value: string }).value = 'passkey.start'));
      await page.fill('input[name=loginName]', 'pl-off');
      await page.locator('form').first().locator('button[type=submit]').click();
      expect((await forged).status()).toBe(403);
      expect(await page.textContent('p.error')).toContain('Sign-in with a passkey alone is turned off here');

      // The passkey as second factor (u2f) is not passwordless: it still works.
      const second = await passwordStep(page, 'pl-off');
      await page.waitForSelector('button[value=passkey]');
      await page.click('button[value=passkey]');
      const secondCode = await outcomeOf(page);
      expect(secondCode).toBeDefined();
      expect(await amrOf(second, secondCode ?? '')).toEqual(['pwd', 'user', 'mfa']);

      await setPolicy({});
      const allowed = await passwordless(device);
      expect(allowed.code, 'control: passwordless allowed').toBeDefined();
      expect(await amrOf(allowed.request, allowed.code ?? '')).toEqual(['user', 'mfa']);
      await device.context.close();
    });

    itIfMet(verdict, 'multiFactors without passkey: passwordless is one factor; forced MFA asks the allowed code next or refuses; control: with passkey it satisfies forced MFA', async () => {
      const withTotp = await newDevice(browser!, node);
      const onlyPasskey = await newDevice(browser!, node);
      const id = await createHuman(node, 'mf-totp');
      const codeNow = await addTotp(id);
      await enrolPasskey(node, withTotp, id);
      await enrolPasskey(node, onlyPasskey, await createHuman(node, 'mf-only'));

      await setPolicy({ multiFactors: { value: [] } });
      const single = await passwordless(withTotp);
      expect(single.code).toBeDefined();
      expect(await amrOf(single.request, single.code ?? ''), 'one factor: no mfa').toEqual(['user']);

      await setPolicy({ forceMfa: true });
      const counted = await passwordless(withTotp);
      expect(counted.code, 'control: the passkey alone satisfies forced MFA').toBeDefined();
      expect(await amrOf(counted.request, counted.code ?? '')).toEqual(['user', 'mfa']);
      // Its session is reused under forced MFA while multiFactors holds passkey, not once it drops it.
      expect(await reusedOrAsked(withTotp.page), 'counted: reused').toBe('reused');
      await setPolicy({ forceMfa: true, multiFactors: { value: [] } });
      expect(await reusedOrAsked(withTotp.page), 'no longer counted: asked').toBe('asked');

      await setPolicy({ forceMfa: true, multiFactors: { value: [] } });
      const { page } = withTotp;
      const request = codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'login' });
      await page.goto(request.url.toString());
      await page.click('button[value="passkey.start"]');
      await page.waitForSelector('button[value=passkey]');
      await page.click('button[value=passkey]');
      await page.waitForSelector('input[name=code]');
      expect(await page.locator('button[value=passkey]').count(), 'not the passkey again').toBe(0);
      await page.fill('input[name=code]', codeNow());
      await page.click('button[value=otp]');
      const code = await outcomeOf(page);
      expect(code).toBeDefined();
      expect(await amrOf(request, code ?? '')).toEqual(['otp', 'user', 'mfa']);

      // A passkey-only session made while it did not count: reused without forced MFA, not with it.
      await setPolicy({ multiFactors: { value: [] } });
      const oneFactor = await passwordless(onlyPasskey);
      expect(await amrOf(oneFactor.request, oneFactor.code ?? '')).toEqual(['user']);
      expect(await reusedOrAsked(onlyPasskey.page), 'not forced: reused').toBe('reused');
      await setPolicy({ forceMfa: true, multiFactors: { value: [] } });
      expect(await reusedOrAsked(onlyPasskey.page), 'forced: asked').toBe('asked');

      const none = await passwordless(onlyPasskey);
      expect(none.code, 'no code factor: no login on the passkey alone').toBeUndefined();
      expect(await onlyPasskey.page.textContent('p.error')).toContain('Sign in with your password once to set one up');
      await setPolicy({});
      await withTotp.context.close();
      await onlyPasskey.context.close();
    });
  });
});
