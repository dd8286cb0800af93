/**
 * OTP by email and by SMS (#14), through the public API and the login UI as a browser without
 * JavaScript (fetch), with real delivery: a real SMTP server on 127.0.0.1 (smtp-server) as the
 * node's default SMTP server and a local HTTP receiver as the active generic SMS provider. The
 * test reads each delivered message and types its code.
 * - API: adding needs a verified email / phone (400 naming the field; control: after the admin
 *   verifies it, adding works), 409 twice, removal, 404 when off; the user shows the factors.
 * - Login: after the password a code is sent and the code page shown; a wrong code, an expired
 *   code (test clock) and a reused code are refused, each beside an accepted right one; the
 *   session's amr is otp+mfa (no `otp` for a password-only login as control); switching factors
 *   and "Send a new code"; failed codes lock the user at maxOtpAttempts.
 * - Sessions API: a password-only session of a user with a second factor says
 *   `secondFactorMissing` and is not reused by the login UI (control: a user without one).
 * - "Send a new code" within / past the per-account rate limit; OTP by SMS refused without an
 *   active SMS provider (control: added once one is active).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, violatedFields, waitFor, type TestNode } from './harness.js';
import { codeRequest, getPage, openLogin, postLogin, submitLoginName, submitPassword, type LoginSteps, type PageResult } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';
import { startSmsReceiver, startSmtpServer, type Mail, type Sms, type SmsReceiver, type Smtp } from './contact-verification.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';

const codeIn = (text: string): string => {
  const code = /sign-in code is (\d{8})/.exec(text)?.[1];
  if (code === undefined) throw new Error(`no code in ${text.slice(0, 300)}`);
  return code;
};
const alertOf = (page: PageResult): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1];
const otherCode = (code: string): string => (code === '00000000' ? '11111111' : '00000000');

let smtp: Smtp;
let sms: SmsReceiver;
let node: TestNode;
let tenant: FlowTenant;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  sms = await startSmsReceiver();
  node = await startTestNode({
    testClock: true,
    env: {
      TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      TESSERA_SMTP_HOST: '127.0.0.1',
      TESSERA_SMTP_PORT: String(smtp.port),
      TESSERA_SMTP_TLS: 'none',
      TESSERA_SMTP_FROM: 'noreply@tessera.example',
      TESSERA_OUTBOX_POLL_MS: '200',
      // Codes live 2 minutes, so one expires while the login request (longer) is still open.
      TESSERA_OTP_CODE_TTL_MS: '120000',
    },
  });
  call = api(node);
  tenant = await createFlowTenant(node, REDIRECT_URI);
  const provider = await call('POST', '/resources/v3alpha/sms_providers', { description: 'receiver', generic: { url: sms.url } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  expect((await call('POST', `/resources/v3alpha/sms_providers/${provider.body.details.id}/_activate`)).status).toBe(200);
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
  await smtp?.close();
  await sms?.close();
});

/** A user with a phone number (unverified until `verify`). */
async function createHumanWithPhone(username: string, phone: string): Promise<string> {
  const id = await createHuman(node, username);
  expect((await call('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number: phone } } })).status).toBe(200);
  return id;
}

/** A user with OTP by SMS (phone verified by the admin) and, if asked, OTP by email. */
async function createSmsUser(username: string, phone: string, withEmail = false): Promise<string> {
  const id = await createHumanWithPhone(username, phone);
  expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
  expect((await call('POST', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);
  if (withEmail) {
    expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_email`)).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/otp_email`)).status).toBe(200);
  }
  return id;
}

// Sign-in codes only: a phone change also sends a verification code by SMS.
const smsTo = (phone: string): Sms[] => sms.received.filter((m) => m.recipient === phone && /sign-in code is/.test(m.text));
const mailsTo = (address: string): Mail[] => smtp.delivered.filter((m) => m.to.includes(address));

/** The code of the next SMS to `phone` after `before` of them. */
const nextSmsCode = async (phone: string, before: number): Promise<string> => codeIn((await waitFor('the SMS', () => smsTo(phone)[before])).text);

const post = (steps: LoginSteps, form: Record<string, string>) => postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, ...form }, steps.headers);

/** Login name and password: the code page (a code sent); returns the steps and the page. */
async function atCodePage(username: string): Promise<{ steps: LoginSteps; page: PageResult }> {
  const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
  expect((await submitLoginName(node, steps, username)).status).toBe(200);
  const posted = await submitPassword(node, steps, PASSWORD);
  expect(posted.status, posted.text.slice(0, 300)).toBe(303);
  expect(posted.location).toMatch(/^\/ui\/login\/login\?/);
  const page = await getPage(node, posted.location ?? '', steps.started.jar.header());
  expect(page.text).toContain('value="otp"');
  return { steps, page };
}

/** The amr of the ID token the login's code redeems for. */
async function amrOf(location: string | null, verifier: string): Promise<string[]> {
  const code = new URL(location ?? 'x:/').searchParams.get('code') ?? '';
  const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
  });
  const idToken = ((await response.json()) as { id_token: string }).id_token;
  return (JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr: string[] }).amr;
}

describe('OTP by email and SMS over the user API', () => {
  it('needs a verified phone / email (control: adding works once the admin verified it); 409 twice; remove; 404 when off', async () => {
    const id = await createHumanWithPhone('otp-api-ann', '+491701110001');
    const unverifiedPhone = await call('POST', `/resources/v3alpha/users/${id}/otp_sms`);
    expect(unverifiedPhone.status).toBe(400);
    expect(unverifiedPhone.body.details[0].id).toBe('user.phone.not_verified');
    expect(violatedFields(unverifiedPhone.body)).toEqual(['phone']);
    const unverifiedEmail = await call('POST', `/resources/v3alpha/users/${id}/otp_email`);
    expect(unverifiedEmail.status).toBe(400);
    expect(violatedFields(unverifiedEmail.body)).toEqual(['email']);

    expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_email`)).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/otp_email`)).status).toBe(200);
    expect((await call('GET', `/resources/v3alpha/users/${id}`)).body.user.human).toMatchObject({ otpSms: true, otpEmail: true });
    const twice = await call('POST', `/resources/v3alpha/users/${id}/otp_sms`);
    expect(twice.status).toBe(409);
    expect(twice.body.details[0].id).toBe('user.otp_sms.exists');

    expect((await call('DELETE', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);
    const gone = await call('DELETE', `/resources/v3alpha/users/${id}/otp_sms`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('user.otp_sms.not_found');
    expect((await call('DELETE', `/resources/v3alpha/users/${id}/otp_email`)).status).toBe(200);
    const user = (await call('GET', `/resources/v3alpha/users/${id}`)).body.user.human;
    expect(user.otpSms ?? false).toBe(false);
    expect(user.otpEmail ?? false).toBe(false);
  });
});

describe('login with OTP by SMS and email', () => {
  it('sends a code by SMS after the password; a wrong code is refused, the right one signs in with amr pwd otp mfa; the code is single-use', async () => {
    const phone = '+491701110002';
    await createSmsUser('otp-sms-bea', phone);
    const before = smsTo(phone).length;
    const { steps, page } = await atCodePage('otp-sms-bea');
    expect(page.text).toContain('We sent a code by SMS.');
    expect(page.text).not.toContain(phone);
    const code = await nextSmsCode(phone, before);

    const wrong = await post(steps, { action: 'otp', code: otherCode(code) });
    expect({ status: wrong.status, alert: alertOf(wrong) }).toEqual({ status: 400, alert: 'The code is wrong or was already used.' });
    const done = await post(steps, { action: 'otp', code });
    expect(done.status, done.text.slice(0, 300)).toBe(303);

    // Reused: the same code in a new login is refused; a fresh code (control) passes.
    const again = await atCodePage('otp-sms-bea');
    const reused = await post(again.steps, { action: 'otp', code });
    expect(alertOf(reused)).toBe('The code is wrong or was already used.');
    const fresh = await nextSmsCode(phone, before + 1);
    expect(fresh).not.toBe(code);
    expect((await post(again.steps, { action: 'otp', code: fresh })).status).toBe(303);
  });

  it('sends no code to a phone number changed after OTP by SMS was added until it is verified; the factor stays required (control: verified again, the code is sent)', async () => {
    const oldPhone = '+491701110021';
    const newPhone = '+491701110022';
    const id = await createSmsUser('otp-sms-moved', oldPhone);
    expect((await call('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number: newPhone } } })).status).toBe(200);
    const before = smsTo(newPhone).length + smsTo(oldPhone).length;
    const moved = await atCodePage('otp-sms-moved');
    expect(moved.page.text).toContain('The code cannot be sent this way right now.');
    // Still on the code step: the password alone does not sign in.
    const guessed = await post(moved.steps, { action: 'otp', code: '12345678' });
    expect(guessed.status).toBe(400);
    expect(smsTo(newPhone).length + smsTo(oldPhone).length, 'nothing was sent').toBe(before);

    expect((await call('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
    const sentBefore = smsTo(newPhone).length;
    const verified = await atCodePage('otp-sms-moved');
    expect(verified.page.text).toContain('We sent a code by SMS.');
    const code = await nextSmsCode(newPhone, sentBefore);
    expect((await post(verified.steps, { action: 'otp', code })).status).toBe(303);
  });

  it('puts otp and mfa into the ID token (control: a password-only user gets pwd alone)', async () => {
    const phone = '+491701110003';
    await createSmsUser('otp-sms-cleo', phone);
    const request = codeRequest(node, tenant.clientId, REDIRECT_URI);
    const steps = await openLogin(node, request.url);
    await submitLoginName(node, steps, 'otp-sms-cleo');
    const before = smsTo(phone).length;
    expect((await submitPassword(node, steps, PASSWORD)).status).toBe(303);
    const done = await post(steps, { action: 'otp', code: await nextSmsCode(phone, before) });
    expect(await amrOf(done.location, request.verifier)).toEqual(['pwd', 'otp', 'mfa']);

    await createHuman(node, 'otp-plain-dan');
    const plainRequest = codeRequest(node, tenant.clientId, REDIRECT_URI);
    const plain = await openLogin(node, plainRequest.url);
    await submitLoginName(node, plain, 'otp-plain-dan');
    const plainDone = await submitPassword(node, plain, PASSWORD);
    expect(await amrOf(plainDone.location, plainRequest.verifier)).toEqual(['pwd']);
  });

  it('refuses an expired code (test clock); a new code sent with "Send a new code" is accepted', async () => {
    const phone = '+491701110004';
    await createSmsUser('otp-sms-eve', phone);
    const before = smsTo(phone).length;
    const { steps } = await atCodePage('otp-sms-eve');
    const code = await nextSmsCode(phone, before);
    node.advanceClock(3 * 60_000);
    const expired = await post(steps, { action: 'otp', code });
    expect(alertOf(expired)).toBe('The code has expired. Send a new code.');
    const resent = await post(steps, { action: 'otp.resend' });
    expect(resent.status).toBe(200);
    expect(resent.text).toContain('A new code is on its way.');
    const fresh = await nextSmsCode(phone, before + 1);
    expect((await post(steps, { action: 'otp', code: fresh })).status).toBe(303);
  });

  it('lets the user switch to the email factor (a mailed code signs in) and offers the other factors', async () => {
    const phone = '+491701110005';
    await createSmsUser('otp-both-fay', phone, true);
    const { steps, page } = await atCodePage('otp-both-fay');
    // SMS first; the page offers email instead.
    expect(page.text).toContain('Send a code by email instead');
    expect(page.text).not.toContain('Use the authenticator app instead');
    const switched = await post(steps, { action: 'otp.method', method: 'email' });
    expect(switched.status).toBe(303);
    const emailPage = await getPage(node, switched.location ?? '', steps.started.jar.header());
    expect(emailPage.text).toContain('We sent a code by email.');
    expect(emailPage.text).toContain('o•••@example.com');
    expect(emailPage.text).toContain('Send a code by SMS instead');
    const mail = await waitFor('the mail', () => mailsTo('otp-both-fay@example.com')[0]);
    // A factor the user does not have is not taken.
    const forged = await post(steps, { action: 'otp.method', method: 'totp' });
    expect(forged.text).toContain('We sent a code by email.');
    const done = await post(steps, { action: 'otp', code: codeIn(mail.raw) });
    expect(done.status, done.text.slice(0, 300)).toBe(303);
    expect(new URL(done.location ?? 'x:/').searchParams.get('code')).toEqual(expect.any(String));
  });

  it('locks the user after maxOtpAttempts wrong codes (control: unlocked, the right code passes)', async () => {
    const phone = '+491701110006';
    const id = await createSmsUser('otp-sms-gus', phone);
    const max = 3;
    expect((await call('PATCH', '/settings/v3alpha/users', { maxOtpAttempts: max })).status).toBe(200);
    const before = smsTo(phone).length;
    const { steps } = await atCodePage('otp-sms-gus');
    const code = await nextSmsCode(phone, before);
    for (let i = 1; i < max; i += 1) {
      const wrong = await post(steps, { action: 'otp', code: otherCode(code) });
      expect(alertOf(wrong)).toBe('The code is wrong or was already used.');
    }
    expect((await call('GET', `/resources/v3alpha/users/${id}`)).body.user.human.failedOtpAttempts).toBe(max - 1);
    const locking = await post(steps, { action: 'otp', code: otherCode(code) });
    expect(alertOf(locking)).toBe('The user is locked. Contact your administrator.');
    expect((await call('GET', `/resources/v3alpha/users/${id}`)).body.user.state).toBe('USER_STATE_LOCKED');
    // Locked: even the right code is refused now.
    expect(alertOf(await post(steps, { action: 'otp', code }))).toBe('The user is locked. Contact your administrator.');
    expect((await call('PATCH', '/settings/v3alpha/users', { maxOtpAttempts: 10 })).status).toBe(200);
    expect((await call('POST', `/resources/v3alpha/users/${id}/_unlock`)).status).toBe(200);
    const right = await post(steps, { action: 'otp', code });
    expect(right.status, right.text.slice(0, 300)).toBe(303);
  });
});

describe('sessions API and second factors', () => {
  it('marks a password-only session of a user with OTP by SMS as missing its second factor and the login UI does not reuse it (control: a user without one)', async () => {
    const id = await createSmsUser('otp-sess-hal', '+491701110007');
    const created = await call('POST', '/resources/v3alpha/sessions', { checks: { user: { userId: id }, password: { password: PASSWORD } } });
    expect(created.status).toBe(201);
    expect(created.body.factors.secondFactorMissing).toBe(true);
    const got = await call('GET', `/resources/v3alpha/sessions/${created.body.details.id}`);
    expect(got.body.session.amr).toEqual(['pwd']);
    expect(got.body.session.factors.secondFactorMissing).toBe(true);

    const plainId = await createHuman(node, 'otp-sess-ida');
    const plain = await call('POST', '/resources/v3alpha/sessions', { checks: { user: { userId: plainId }, password: { password: PASSWORD } } });
    expect(plain.body.factors.secondFactorMissing ?? false).toBe(false);

    // The login UI: with the SMS user's session token as the browser's cookie, the request is
    // not answered from it (the login name page); with the plain user's, it is (a code at once).
    const cookie = (token: string) => ({ cookie: `tessera_sessions=${token}` });
    const withSms = await fetch(codeRequest(node, tenant.clientId, REDIRECT_URI).url, { redirect: 'manual', headers: cookie(created.body.sessionToken) });
    expect(withSms.headers.get('location')).toMatch(/^\/ui\/login\/login\?/);
    const withPlain = await fetch(codeRequest(node, tenant.clientId, REDIRECT_URI).url, { redirect: 'manual', headers: cookie(plain.body.sessionToken) });
    expect(withPlain.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?code=/);
  });
});

describe('"Send a new code", the rate limits and delivery', () => {
  let limited: TestNode;
  let providerId: string;
  beforeAll(async () => {
    limited = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', TESSERA_OUTBOX_POLL_MS: '200', TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME: '4/1m' } });
    const on = api(limited);
    const provider = await on('POST', '/resources/v3alpha/sms_providers', { generic: { url: sms.url } });
    providerId = provider.body.details.id;
    expect((await on('POST', `/resources/v3alpha/sms_providers/${providerId}/_activate`)).status).toBe(200);
  });
  afterAll(async () => {
    await limited?.stop();
    limited?.cleanup();
  });

  it('sends codes while the account is under its limit (control) and refuses with 429, sending nothing, past it', async () => {
    const phone = '+491701110099';
    const on = api(limited);
    const id = await createHuman(limited, 'otp-rate-ivo');
    expect((await on('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number: phone } } })).status).toBe(200);
    expect((await on('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
    expect((await on('POST', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);
    const limitedTenant = await createFlowTenant(limited, REDIRECT_URI);
    const steps = await openLogin(limited, codeRequest(limited, limitedTenant.clientId, REDIRECT_URI).url);
    await submitLoginName(limited, steps, 'otp-rate-ivo');
    const form = (f: Record<string, string>) => postLogin(limited, { authRequest: steps.started.authRequest, csrf: steps.csrf, ...f }, steps.headers);
    // The password (1) sends the first code; three new codes (2..4) stay within 4 per minute.
    expect((await submitPassword(limited, steps, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 3; i += 1) expect((await form({ action: 'otp.resend' })).status).toBe(200);
    await waitFor('four SMS', () => (smsTo(phone).length === 4 ? true : undefined));
    const refused = await form({ action: 'otp.resend' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many attempts');
    // A refused request is answered before any code is made: the user still has the code of the
    // fourth message pending (it signs in once the window allows a check again — not waited for).
    expect(smsTo(phone)).toHaveLength(4);
  });

  it('refuses OTP by SMS without an active SMS provider (400 delivery.sms_unavailable; control: added once one is active)', async () => {
    const on = api(limited);
    const id = await createHuman(limited, 'otp-nosms-jo');
    expect((await on('PATCH', `/resources/v3alpha/users/${id}`, { human: { phone: { number: '+491701110098' } } })).status).toBe(200);
    expect((await on('POST', `/resources/v3alpha/users/${id}/_verify_phone`)).status).toBe(200);
    expect((await on('POST', `/resources/v3alpha/sms_providers/${providerId}/_deactivate`)).status).toBe(200);
    const refused = await on('POST', `/resources/v3alpha/users/${id}/otp_sms`);
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('delivery.sms_unavailable');
    expect((await on('POST', `/resources/v3alpha/sms_providers/${providerId}/_activate`)).status).toBe(200);
    expect((await on('POST', `/resources/v3alpha/users/${id}/otp_sms`)).status).toBe(200);
  });
});
