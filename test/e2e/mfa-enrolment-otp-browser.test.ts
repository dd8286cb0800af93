/**
 * Enrolment during login of OTP by email and by SMS (issue 14) in a real browser (Chromium
 * through playwright-core; the pages carry no script). The login policy forces a second factor;
 * the users have none. Mail really travels to an SMTP server on 127.0.0.1 (smtp-server, the
 * node's TESSERA_SMTP_*), SMS to a local receiver of the generic webhook (an active SMS
 * provider); the test reads the delivered code and types it.
 * - A user with a verified email address only: the enrolment page offers "Code by email" and
 *   not "Code by SMS" (the phone is not verified; control in the same page: the email option);
 *   choosing it sends a code to the address; a wrong code is refused (the page again), "Send a
 *   new code" sends another, the replaced code is refused, the new one finishes the login (amr
 *   pwd otp mfa) and the user now has OTP by email: the next login asks for the email code.
 * - A user with a verified phone only: the same with SMS, the policy allowing only `otp_sms`
 *   (the SMS page is the first shown).
 * - An expired enrolment code (the node's test clock moved past TESSERA_OTP_CODE_TTL_MS) is
 *   refused; "Send a new code" sends one, which sets the factor up (control).
 * - A user with neither verified, the policy allowing only the code factors: no option at all
 *   (the page says none can be set up); control: the verified-email user above was offered one.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { docScreenshot, launchBrowser, type TestBrowser } from './browser.fixture.js';
import { deliveryEnv, otherCode, startSmsReceiver, startSmtpServer, type SmsReceiver, type Smtp } from './contact-verification.fixture.js';
import { api, startTestNode, waitFor, type TestNode } from './harness.js';
import { codeRequest, type CodeRequest, idTokenClaimsOf } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);
const L = '/settings/v3alpha/login';
const USERS = '/resources/v3alpha/users';
/** The login codes' lifetime on this node (the test clock moves past it). */
const CODE_TTL_MS = 120_000;

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
let smtp: Smtp;
let sms: SmsReceiver;

beforeAll(async () => {
  if (chromium.outcome !== 'run') return;
  smtp = await startSmtpServer();
  sms = await startSmsReceiver();
  node = await startTestNode({ testClock: true, env: { ...deliveryEnv(smtp), TESSERA_OTP_CODE_TTL_MS: String(CODE_TTL_MS) } });
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  const call = api(node);
  const provider = await call('POST', '/resources/v3alpha/sms_providers', { generic: { url: sms.url } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  expect((await call('POST', `/resources/v3alpha/sms_providers/${provider.body.details.id}/_activate`)).status).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  if (chromium.outcome !== 'run') return;
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
  await smtp.close();
  await sms.close();
});

async function setPolicy(settings: object): Promise<void> {
  const response = await api(node)('PATCH', L, settings);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

const SIGN_IN_CODE = /sign-in code is (\d{8})/;

/** Sign-in code number `index` (0-based) mailed to `address` (verification mails are skipped). */
async function mailedSignInCode(address: string, index: number): Promise<string> {
  const mail = await waitFor(`sign-in mail ${index} to ${address}`, () => smtp.delivered.filter((m) => m.to.includes(address) && SIGN_IN_CODE.test(m.raw))[index]);
  return SIGN_IN_CODE.exec(mail.raw)![1]!;
}

/** Sign-in code number `index` sent by SMS to `number`. */
async function smsSignInCode(number: string, index: number): Promise<string> {
  const message = await waitFor(`sign-in SMS ${index} to ${number}`, () => sms.received.filter((s) => s.recipient === number && SIGN_IN_CODE.test(s.text))[index]);
  return SIGN_IN_CODE.exec(message.text)![1]!;
}

const signInMails = (address: string) => smtp.delivered.filter((m) => m.to.includes(address) && SIGN_IN_CODE.test(m.raw)).length;

async function amrOf(request: CodeRequest, code: string): Promise<string[]> {
  return (await idTokenClaimsOf(node, tenant.clientId, callback.redirectUri, request, code)).amr;
}

async function passwordStep(page: Page, loginName: string): Promise<void> {
  await page.fill('input[name=loginName]', loginName);
  await page.click('button[value=loginname]');
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[value=password]');
}

async function enterCode(page: Page, code: string): Promise<void> {
  await page.fill('input[name=code]', code);
  await page.click('button.primary[value="mfa.enrol"]');
}

/** A human with a phone number; `verify` says which of email / phone the admin verifies. */
async function createContactUser(username: string, phone: string, verify: { email: boolean; phone: boolean }): Promise<string> {
  const call = api(node);
  const id = await createHuman(node, username);
  expect((await call('PATCH', `${USERS}/${id}`, { human: { phone: { number: phone } } })).status).toBe(200);
  if (verify.email) expect((await call('POST', `${USERS}/${id}/_verify_email`)).status).toBe(200);
  if (verify.phone) expect((await call('POST', `${USERS}/${id}/_verify_phone`)).status).toBe(200);
  const user = await call('GET', `${USERS}/${id}`);
  expect(user.body.user.human.email.isVerified ?? false).toBe(verify.email);
  expect(user.body.user.human.phone.isVerified ?? false).toBe(verify.phone);
  return id;
}

async function otpEmailOf(id: string): Promise<boolean> {
  const user = await api(node)('GET', `${USERS}/${id}`);
  return (user.body.user.human.otpEmail as boolean | undefined) ?? false;
}

describeIfMet(chromium, 'enrolment of OTP by email / SMS during login in Chromium', () => {
  it('verified email only: offers the email code (not SMS), the mailed code sets it up (wrong and replaced codes refused), amr pwd otp mfa; the next login asks for the email code', async () => {
    const address = 'enrol-email@example.com';
    const id = await createContactUser('enrol-email', '+491709990101', { email: true, phone: false });
    await setPolicy({ forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS'] } });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await passwordStep(page, 'enrol-email');
    // The first option (TOTP) with the others as buttons: email offered, SMS not (phone unverified).
    await page.waitForSelector('#totp-secret');
    const choices = page.locator('button[value="mfa.enrol.choose"]');
    expect(await choices.allTextContents()).toEqual(['Code by email']);
    expect(signInMails(address), 'nothing sent before the email option is chosen').toBe(0);

    await choices.first().click();
    await page.waitForSelector('p.sent-to');
    expect(await page.textContent('main')).toContain('We sent a code to your verified email address.');
    expect(await page.textContent('p.sent-to')).toContain('e•••@example.com');
    expect(await page.locator('script').count()).toBe(0);
    await docScreenshot(page, 'mfa-enrol-otp-email');
    const first = await mailedSignInCode(address, 0);

    await enterCode(page, otherCode(first));
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    expect(await page.locator('input[name=code]').count(), 'the enrolment page again').toBe(1);
    expect(await otpEmailOf(id), 'a wrong code adds nothing').toBe(false);

    await page.click('button.secondary:has-text("Send a new code")');
    await page.waitForSelector('p.notice');
    expect(await page.textContent('p.notice')).toContain('A new code is on its way.');
    const second = await mailedSignInCode(address, 1);
    await enterCode(page, first);
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error'), 'the replaced code').toContain('The code is wrong');

    await enterCode(page, second);
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    expect(await otpEmailOf(id), 'the right code added OTP by email').toBe(true);
    await context.close();

    // OTP by email is now the user's factor: the next login sends the code page's email code, no enrolment.
    const again = await browser!.newContext();
    const next = await again.newPage();
    const nextRequest = codeRequest(node, tenant.clientId, callback.redirectUri);
    const nextArrived = callback.next();
    await next.goto(nextRequest.url.toString());
    await passwordStep(next, 'enrol-email');
    await next.waitForSelector('input[name=code]');
    expect(await next.textContent('main')).toContain('We sent a code by email.');
    expect(await next.locator('button[value="mfa.enrol"]').count(), 'no enrolment page').toBe(0);
    await next.fill('input[name=code]', await mailedSignInCode(address, 2));
    await next.click('button[value=otp]');
    const nextDone = await nextArrived;
    expect(await amrOf(nextRequest, nextDone.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    await again.close();
  });

  it('verified phone only, policy allowing only otp_sms: the SMS code sets it up (wrong code refused), amr pwd otp mfa; the next login asks for the SMS code', async () => {
    const phone = '+491709990102';
    await createContactUser('enrol-sms', phone, { email: false, phone: true });
    await setPolicy({ forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_OTP_SMS'] } });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await passwordStep(page, 'enrol-sms');
    await page.waitForSelector('p.sent-to');
    expect(await page.textContent('main')).toContain('We sent a code by SMS to your verified phone number.');
    expect(await page.locator('#totp-secret').count(), 'TOTP not allowed by the policy').toBe(0);
    expect(await page.locator('button[value="mfa.enrol.choose"]').count()).toBe(0);
    await docScreenshot(page, 'mfa-enrol-otp-sms');
    const code = await smsSignInCode(phone, 0);

    // A reload shows the page again without sending another code.
    await page.reload();
    await page.waitForSelector('p.sent-to');
    await enterCode(page, otherCode(code));
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code is wrong');
    expect(sms.received.filter((s) => s.recipient === phone && SIGN_IN_CODE.test(s.text)).length, 'one code sent').toBe(1);

    await enterCode(page, code);
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    await context.close();

    const again = await browser!.newContext();
    const next = await again.newPage();
    await next.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await passwordStep(next, 'enrol-sms');
    await next.waitForSelector('input[name=code]');
    expect(await next.textContent('main')).toContain('We sent a code by SMS.');
    expect(await next.locator('button[value="mfa.enrol"]').count(), 'no enrolment page').toBe(0);
    await smsSignInCode(phone, 1);
    await again.close();
  });

  it('neither email nor phone verified, policy allowing only the code factors: no option is offered; control: a verified phone is', async () => {
    await createContactUser('enrol-unverified', '+491709990103', { email: false, phone: false });
    await createContactUser('enrol-control', '+491709990104', { email: false, phone: true });
    await setPolicy({ forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS'] } });
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await passwordStep(page, 'enrol-unverified');
    await page.waitForSelector('p.error');
    expect(await page.textContent('main')).toContain('none can be set up here');
    expect((await page.reload())?.status()).toBe(409);
    expect(await page.locator('input[name=code]').count()).toBe(0);
    expect(smtp.delivered.filter((m) => m.to.includes('enrol-unverified@example.com') && SIGN_IN_CODE.test(m.raw)).length, 'no code mailed').toBe(0);

    await page.goto(codeRequest(node, tenant.clientId, callback.redirectUri).url.toString());
    await passwordStep(page, 'enrol-control');
    await page.waitForSelector('p.sent-to');
    expect(await page.textContent('main')).toContain('We sent a code by SMS to your verified phone number.');
    await setPolicy({ forceMfa: false });
    await context.close();
  });

  it('an expired enrolment code is refused; "Send a new code" sends one that sets it up (control)', async () => {
    const phone = '+491709990105';
    await createContactUser('enrol-expired', phone, { email: false, phone: true });
    await setPolicy({ forceMfa: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_OTP_SMS'] } });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const request = codeRequest(node, tenant.clientId, callback.redirectUri);
    const arrived = callback.next();
    await page.goto(request.url.toString());
    await passwordStep(page, 'enrol-expired');
    await page.waitForSelector('p.sent-to');
    const expired = await smsSignInCode(phone, 0);
    node.advanceClock(CODE_TTL_MS + 1_000);
    await enterCode(page, expired);
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toContain('The code has expired');

    await page.click('button.secondary:has-text("Send a new code")');
    await page.waitForSelector('p.notice');
    const fresh = await smsSignInCode(phone, 1);
    await enterCode(page, fresh);
    const done = await arrived;
    expect(await amrOf(request, done.params.get('code') ?? '')).toEqual(['pwd', 'otp', 'mfa']);
    await setPolicy({ forceMfa: false });
    await context.close();
  });
});
