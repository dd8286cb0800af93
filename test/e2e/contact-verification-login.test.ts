/**
 * Email verification in the login UI (#14) on an instance whose login settings require a verified
 * email (PATCH /settings/v3alpha/login emailVerificationRequired), with a real SMTP server on 127.0.0.1:
 * - Chromium (no script on the pages): self-registration mails a code, the login stops at the
 *   verification page, a wrong code is refused there, the mailed code finishes the login, and
 *   userinfo says email_verified true.
 * - fetch: an existing user with an unverified email is held after the password (a code is
 *   mailed), one with an unverified phone (phoneVerificationRequired) for the
 *   code sent by SMS to a local HTTP receiver, "Send again" mails a new one (the old is refused, the new accepted), prompt=none
 *   with the held browser session answers interaction_required and, once verified, a code; a
 *   user with a verified email is not held (control).
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, getPage, openLogin, postLogin, submitLoginName, submitPassword, type LoginSteps, type PageResult } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';
import { deliveryEnv, mailedCode, otherCode, smsCode, startSmsReceiver, startSmtpServer, type Smtp, type SmsReceiver } from './contact-verification.fixture.js';

const chromium = await meet(CHROMIUM);

let smtp: Smtp;
let sms: SmsReceiver;
let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  smtp = await startSmtpServer();
  sms = await startSmsReceiver();
  node = await startTestNode({ env: deliveryEnv(smtp) });
  await requireVerification(true);
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await node?.stop();
  node?.cleanup();
  await smtp?.close();
  await sms?.close();
});

/** The instance's login settings: verified email and phone required, or not. */
async function requireVerification(required: boolean): Promise<void> {
  const set = await api(node)('PATCH', '/settings/v3alpha/login', { emailVerificationRequired: required, phoneVerificationRequired: required });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
}

describeIfMet(chromium, 'registration with email verification in Chromium', () => {
  it('mails a code on registration, asks for it before the login finishes, refuses a wrong one, and userinfo says email_verified', async () => {
    const config = await oidc.discovery(new URL(node.baseUrl), tenant.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback.redirectUri,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      prompt: 'create',
      state,
    });
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(url.toString());
    await page.fill('input[name=username]', 'reg-verify');
    await page.fill('input[name=givenName]', 'Vera');
    await page.fill('input[name=familyName]', 'Fied');
    await page.fill('input[name=email]', 'reg-verify@example.com');
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=passwordRepeat]', PASSWORD);
    await page.click('button[value="register.submit"]');

    await page.waitForSelector('button[value="verify.submit"]');
    expect(await page.textContent('h1')).toBe('Verify your email address');
    expect(await page.locator('button[value="verify.resend"]').count()).toBe(1);
    expect(await page.locator('script').count()).toBe(0);
    await docScreenshot(page, 'verify-email');
    const code = await mailedCode(smtp, 'reg-verify@example.com', 0);

    await page.fill('input[name=code]', otherCode(code));
    await page.click('button[value="verify.submit"]');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    await docScreenshot(page, 'verify-email-wrong-code');

    const arrived = callback.next();
    await page.fill('input[name=code]', code);
    await page.click('button[value="verify.submit"]');
    const done = await arrived;
    const tokens = await oidc.authorizationCodeGrant(config, new URL(done.url), { pkceCodeVerifier: verifier, expectedState: state });
    const claims = tokens.claims()!;
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect({ email: userinfo.email, email_verified: userinfo.email_verified }).toEqual({ email: 'reg-verify@example.com', email_verified: true });
    await context.close();
  });
});

const post = (steps: LoginSteps, form: Record<string, string>) => postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, ...form }, { ...steps.headers, cookie: steps.started.jar.header() });

/** Password step for `username`; follows the redirect to the page that comes next. */
async function afterPassword(username: string, extra: Record<string, string> = {}): Promise<{ steps: LoginSteps; page: PageResult; request: ReturnType<typeof codeRequest> }> {
  const request = codeRequest(node, tenant.clientId, callback.redirectUri, extra);
  const steps = await openLogin(node, request.url);
  expect((await submitLoginName(node, steps, username)).status).toBe(200);
  const posted = await submitPassword(node, steps, PASSWORD);
  steps.started.jar.take(posted.response);
  expect(posted.status).toBe(303);
  const location = posted.location ?? '';
  if (!location.startsWith('/ui/login/')) return { steps, page: posted, request };
  return { steps, page: await getPage(node, location, steps.started.jar.header()), request };
}

describe('the verification step (fetch)', () => {
  it('holds an unverified user after the password; "Send again" replaces the code; the new code finishes the login', async () => {
    await createHuman(node, 'held-user');
    const { steps, page } = await afterPassword('held-user');
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="verify.submit"');
    const first = await mailedCode(smtp, 'held-user@example.com', 0);

    const resent = await post(steps, { action: 'verify.resend' });
    expect(resent.status).toBe(200);
    expect(resent.text).toContain('A new code is on its way.');
    const second = await mailedCode(smtp, 'held-user@example.com', 1);
    if (first !== second) {
      const old = await post(steps, { action: 'verify.submit', code: first });
      expect(old.status).toBe(400);
      expect(old.text).toContain('The code is wrong');
    }
    const done = await post(steps, { action: 'verify.submit', code: second });
    expect(done.status).toBe(303);
    expect(new URL(done.location ?? '').searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('prompt=none with the held browser session is interaction_required until the email is verified, then a code', async () => {
    const id = await createHuman(node, 'held-silent');
    const { steps } = await afterPassword('held-silent');
    const silent = async () => {
      const response = await fetch(codeRequest(node, tenant.clientId, callback.redirectUri, { prompt: 'none' }).url, { redirect: 'manual', headers: { cookie: steps.started.jar.header() } });
      return new URL(response.headers.get('location') ?? '', node.baseUrl).searchParams;
    };
    expect((await silent()).get('error')).toBe('interaction_required');
    expect((await api(node)('POST', `/resources/v3alpha/users/${id}/_verify_email`)).status).toBe(200);
    const after = await silent();
    expect(after.get('error')).toBeNull();
    expect(after.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('holds a user with an unverified phone number for the code sent by SMS; the right code finishes the login', async () => {
    const provider = await api(node)('POST', '/resources/v3alpha/sms_providers', { description: 'Webhook', generic: { url: sms.url } });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    expect((await api(node)('POST', `/resources/v3alpha/sms_providers/${provider.body.details.id}/_activate`)).status).toBe(200);
    const id = await createHuman(node, 'held-phone');
    expect((await api(node)('POST', `/resources/v3alpha/users/${id}/_verify_email`)).status).toBe(200);
    const number = '+41790001122';
    expect((await api(node)('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number } } })).status).toBe(200);
    const sent = await smsCode(sms, number, 0); // the phone change sent one

    const { steps, page } = await afterPassword('held-phone');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Verify your phone number');
    const wrong = await post(steps, { action: 'verify.submit', code: otherCode(sent) });
    expect(wrong.status).toBe(400);
    // The code the phone change sent is still the pending one: the step sent no newer code over it.
    const done = await post(steps, { action: 'verify.submit', code: sent });
    expect(done.status).toBe(303);
    expect(new URL(done.location ?? '').searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('does not hold an unverified user once the login settings stop requiring it (control), and holds again when they do', async () => {
    await createHuman(node, 'policy-off-user');
    await requireVerification(false);
    try {
      const free = await afterPassword('policy-off-user');
      expect(free.page.status).toBe(303);
      expect(new URL(free.page.location ?? '').searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await requireVerification(true);
    }
    const held = await afterPassword('policy-off-user');
    expect(held.page.status).toBe(200);
    expect(held.page.text).toContain('value="verify.submit"');
  });

  it('does not hold a user whose email is verified (control)', async () => {
    const id = await createHuman(node, 'verified-user');
    expect((await api(node)('POST', `/resources/v3alpha/users/${id}/_verify_email`)).status).toBe(200);
    const { page } = await afterPassword('verified-user');
    expect(page.status).toBe(303);
    expect(new URL(page.location ?? '').searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
