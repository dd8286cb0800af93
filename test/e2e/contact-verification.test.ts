/**
 * Email and phone verification by a code (#14) through the user API, with real delivery: the
 * node's default SMTP server is a smtp-server on 127.0.0.1 and the SMS provider a generic
 * webhook received on 127.0.0.1. A code from the mail / SMS verifies the address; a wrong code
 * (400 naming the field), an expired one (test clock), a reused one and one for a replaced
 * address are refused, each beside an accepted code. A changed email or phone gets a code by
 * itself. Guessing is limited per user. Without SMS provider / SMTP the send answers 400 delivery.sms_unavailable /
 * delivery.mail_unavailable. Export and import carry the verified state. The administrator's mark without a code still works. Runs on the
 * store the suite is set to (TESSERA_TEST_STORE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, violatedFields, type TestNode } from './harness.js';
import { createHuman, PASSWORD } from './oidc-code-flow.fixture.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';
import { deliveryEnv, mailedCode, otherCode, smsCode, startSmsReceiver, startSmtpServer, type Smtp, type SmsReceiver } from './contact-verification.fixture.js';

const TTL_MS = 120_000;
/** Code sends and checks per user and minute (the password limit of the user). */
const ATTEMPTS = 6;
const USERS = '/resources/v3alpha/users';

let smtp: Smtp;
let sms: SmsReceiver;
let node: TestNode;
let call: ReturnType<typeof api>;
let ops: Awaited<ReturnType<typeof createSystemUserKey>>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  sms = await startSmsReceiver();
  ops = await createSystemUserKey('ops');
  node = await startTestNode({ env: { ...deliveryEnv(smtp), TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api', TESSERA_CONTACT_CODE_TTL_MS: String(TTL_MS), TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME: `${ATTEMPTS}/1m` }, testClock: true });
  call = api(node);
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
  await smtp?.close();
  await sms?.close();
});

/** The error's code (ErrorInfo id of the first detail). */
const idOf = (body: Record<string, any>): string | undefined => body.details?.[0]?.id;
const contactOf = (value: { isVerified?: boolean } & Record<string, unknown>) => ({ ...value, isVerified: value.isVerified ?? false });
const emailOf = async (id: string) => contactOf((await call('GET', `${USERS}/${id}`)).body.user.human.email);
const phoneOf = async (id: string) => contactOf((await call('GET', `${USERS}/${id}`)).body.user.human.phone);
const verifyEmail = (id: string, verificationCode: string) => call('POST', `${USERS}/${id}/email/_verify`, { verificationCode });
const verifyPhone = (id: string, verificationCode: string) => call('POST', `${USERS}/${id}/phone/_verify`, { verificationCode });

describe('email verification by code', () => {
  it('mails a code; a wrong code is refused naming the field, the right one verifies, and it cannot be used again', async () => {
    const id = await createHuman(node, 'cv-alice');
    expect(await emailOf(id)).toEqual({ address: 'cv-alice@example.com', isVerified: false });
    const sent = await call('POST', `${USERS}/${id}/email/_send_code`);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const code = await mailedCode(smtp, 'cv-alice@example.com', 0);

    const wrong = await verifyEmail(id, otherCode(code));
    expect(wrong.status).toBe(400);
    expect(idOf(wrong.body)).toBe('user.email.code_invalid');
    expect(violatedFields(wrong.body)).toEqual(['email.verificationCode']);
    expect(await emailOf(id)).toEqual({ address: 'cv-alice@example.com', isVerified: false });

    const right = await verifyEmail(id, code);
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(await emailOf(id)).toEqual({ address: 'cv-alice@example.com', isVerified: true });

    const reused = await verifyEmail(id, code);
    expect(reused.status).toBe(400);
    expect(idOf(reused.body)).toBe('user.email.already_verified');
  });

  it('a code is single use: after a newer code the first is refused, the newer one verifies', async () => {
    const id = await createHuman(node, 'cv-bob');
    await call('POST', `${USERS}/${id}/email/_send_code`);
    const first = await mailedCode(smtp, 'cv-bob@example.com', 0);
    await call('POST', `${USERS}/${id}/email/_send_code`);
    const second = await mailedCode(smtp, 'cv-bob@example.com', 1);
    const replaced = await verifyEmail(id, first);
    expect(first === second ? 'same code drawn' : idOf(replaced.body)).toBe(first === second ? 'same code drawn' : 'user.email.code_invalid');
    expect((await verifyEmail(id, second)).status).toBe(200);
  });

  it('an expired code is refused (test clock); a new code then verifies', async () => {
    const id = await createHuman(node, 'cv-carol');
    expect((await call('POST', `${USERS}/${id}/email/_send_code`)).status).toBe(200);
    const code = await mailedCode(smtp, 'cv-carol@example.com', 0);
    node.advanceClock(TTL_MS + 1000);
    const expired = await verifyEmail(id, code);
    expect(expired.status, JSON.stringify(expired.body)).toBe(400);
    expect(idOf(expired.body)).toBe('user.email.code_expired');
    expect(violatedFields(expired.body)).toEqual(['email.verificationCode']);

    await call('POST', `${USERS}/${id}/email/_send_code`);
    const fresh = await mailedCode(smtp, 'cv-carol@example.com', 1);
    const accepted = await verifyEmail(id, fresh);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  });

  it('an email change sends a code to the new address by itself; the old address code no longer verifies', async () => {
    const id = await createHuman(node, 'cv-dave');
    await call('POST', `${USERS}/${id}/email/_send_code`);
    const oldCode = await mailedCode(smtp, 'cv-dave@example.com', 0);
    const patched = await call('PATCH', `${USERS}/${id}`, { human: { email: { address: 'cv-dave-new@example.com' } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const newCode = await mailedCode(smtp, 'cv-dave-new@example.com', 0);

    const stale = await verifyEmail(id, oldCode);
    expect(oldCode === newCode ? 'same code drawn' : idOf(stale.body)).toBe(oldCode === newCode ? 'same code drawn' : 'user.email.code_invalid');
    expect((await verifyEmail(id, newCode)).status).toBe(200);
    expect(await emailOf(id)).toEqual({ address: 'cv-dave-new@example.com', isVerified: true });
  });

  it('the administrator still marks an address verified without a code', async () => {
    const id = await createHuman(node, 'cv-erin');
    expect((await call('POST', `${USERS}/${id}/_verify_email`)).status).toBe(200);
    expect(await emailOf(id)).toEqual({ address: 'cv-erin@example.com', isVerified: true });
    const again = await call('POST', `${USERS}/${id}/email/_send_code`);
    expect(again.status).toBe(400);
    expect(idOf(again.body)).toBe('user.email.already_verified');
  });

  it('a missing or empty code is 400 naming the field', async () => {
    const id = await createHuman(node, 'cv-fay');
    const empty = await call('POST', `${USERS}/${id}/email/_verify`, { verificationCode: '' });
    expect(empty.status).toBe(400);
    expect(violatedFields(empty.body)).toEqual(['email.verificationCode']);
  });
});

describe('guessing', () => {
  it('is limited per user: past the password limit even the right code is answered 429 (control: wrong codes before it are 400)', async () => {
    const id = await createHuman(node, 'cv-guess');
    await call('POST', `${USERS}/${id}/email/_send_code`);
    const code = await mailedCode(smtp, 'cv-guess@example.com', 0);
    const answers: number[] = [];
    for (let i = 1; i < ATTEMPTS; i += 1) answers.push((await verifyEmail(id, otherCode(code))).status);
    expect(answers).toEqual(Array.from({ length: ATTEMPTS - 1 }, () => 400));
    const limited = await verifyEmail(id, code);
    expect(limited.status).toBe(429);
    expect(await emailOf(id)).toEqual({ address: 'cv-guess@example.com', isVerified: false });
  });
});

describe('phone verification by SMS', () => {
  it('without an SMS provider the send is 400 delivery.sms_unavailable; with one, a phone change sends a code by SMS that verifies', async () => {
    const id = await createHuman(node, 'cv-gus');
    const number = '+41791112233';
    expect((await call('PATCH', `${USERS}/${id}`, { human: { phone: { number } } })).status).toBe(200);
    const unavailable = await call('POST', `${USERS}/${id}/phone/_send_code`);
    expect(unavailable.status).toBe(400);
    expect(idOf(unavailable.body)).toBe('delivery.sms_unavailable');
    expect(sms.received).toEqual([]);

    const provider = await call('POST', '/resources/v3alpha/sms_providers', { description: 'Webhook', generic: { url: sms.url } });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    expect((await call('POST', `/resources/v3alpha/sms_providers/${provider.body.details.id}/_activate`)).status).toBe(200);

    const changed = '+41794445566';
    expect((await call('PATCH', `${USERS}/${id}`, { human: { phone: { number: changed } } })).status).toBe(200);
    const code = await smsCode(sms, changed, 0);
    const wrong = await verifyPhone(id, otherCode(code));
    expect(wrong.status).toBe(400);
    expect(idOf(wrong.body)).toBe('user.phone.code_invalid');
    expect(violatedFields(wrong.body)).toEqual(['phone.verificationCode']);
    expect((await verifyPhone(id, code)).status).toBe(200);
    expect(await phoneOf(id)).toEqual({ number: changed, isVerified: true });

    const reused = await verifyPhone(id, code);
    expect(reused.status).toBe(400);
  });
});

describe('export and import', () => {
  it('carry the verified state of an email verified by code and of an unverified phone into another instance', async () => {
    const orgId: string = (await call('POST', '/resources/v3alpha/organizations', { name: 'Verified Export' })).body.details.id;
    const created = await call('POST', `${USERS}?ctx.orgId=${orgId}`, {
      human: { username: 'cv-export', profile: { givenName: 'Ex', familyName: 'Port' }, email: { address: 'cv-export@example.com' }, phone: { number: '+41797778899', isVerified: false }, password: PASSWORD },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.details.id;
    await call('POST', `${USERS}/${id}/email/_send_code`);
    expect((await verifyEmail(id, await mailedCode(smtp, 'cv-export@example.com', 0))).status).toBe(200);

    const exported = await call('POST', '/admin/v1/export', { org_ids: [orgId], response_output: true });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const user = exported.body.orgs[0].humanUsers.find((u: any) => u.userId === id).user;
    expect({ email: user.email, phone: user.phone }).toEqual({ email: { email: 'cv-export@example.com', isEmailVerified: true }, phone: { phone: '+41797778899', isPhoneVerified: false } });

    const instance = await systemApi(node, ops)('POST', '/resources/v3alpha/instances', { name: 'Import Target', domain: 'cv-import.test', admin: { username: 'cv-admin' } });
    expect(instance.status, JSON.stringify(instance.body)).toBe(201);
    const second = api(node, instance.body.adminToken);
    const host = { host: `cv-import.test:${node.httpPort}` };
    const imported = await second('POST', '/admin/v1/import', { timeout: '5m', data_orgsv1: exported.body }, host);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors).toEqual([]);
    const there = (await second('GET', `${USERS}/${id}`, undefined, host)).body.user.human;
    expect({ email: contactOf(there.email), phone: contactOf(there.phone) }).toEqual({ email: { address: 'cv-export@example.com', isVerified: true }, phone: { number: '+41797778899', isVerified: false } });
  });
});

describe('an instance without mail', () => {
  it('answers 400 delivery.mail_unavailable (control: the node with SMTP sent codes above)', async () => {
    const bare = await startTestNode();
    try {
      const id = await createHuman(bare, 'cv-nomail');
      const sent = await api(bare)('POST', `${USERS}/${id}/email/_send_code`);
      expect(sent.status).toBe(400);
      expect(sent.body.details?.[0]?.id).toBe('delivery.mail_unavailable');
    } finally {
      await bare.stop();
      bare.cleanup();
    }
  });
});
