/**
 * Password reset in the login UI through the durable outbox (#14), against a real SMTP server
 * on 127.0.0.1 (smtp-server) as the node's default SMTP server (TESSERA_SMTP_*): "Forgot
 * password?" on the password step queues a mail; the test reads the delivered mail, uses its
 * code to set a new password, the login continues, the user's sessions ended, the old password
 * fails and the new one works; a wrong, a reused and an expired code (test clock) are refused
 * with the right one accepted beside them; a user with TOTP is still asked for the code after the
 * reset. A node killed (SIGKILL) while the SMTP server refuses
 * the first attempt delivers the message exactly once after the restart. A node without any
 * SMTP hides the link. Runs on the store the suite is set to (TESSERA_TEST_STORE).
 */
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, waitFor, type TestNode } from './harness.js';
import { codeRequest, getPage, logInWithFetch, openLogin, postLogin, submitLoginName, submitPassword, type LoginSteps, type PageResult } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const NEW_PASSWORD = 'N3w-Passw0rd!';

interface Mail {
  readonly to: readonly string[];
  readonly raw: string;
}

/** A real SMTP server; while `refusing`, every recipient is refused with 451 (a temporary failure). */
async function startSmtpServer() {
  const state = { refusing: false, attempts: 0, delivered: [] as Mail[] };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      state.attempts += 1;
      if (state.refusing) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        state.delivered.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { state, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

function nodeEnv(smtp: Smtp): Record<string, string> {
  return {
    TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    TESSERA_SMTP_HOST: '127.0.0.1',
    TESSERA_SMTP_PORT: String(smtp.port),
    TESSERA_SMTP_TLS: 'none',
    TESSERA_SMTP_FROM: 'noreply@tessera.example',
    TESSERA_SMTP_FROM_NAME: 'Tessera',
    TESSERA_OUTBOX_POLL_MS: '200',
    TESSERA_OUTBOX_BACKOFF_MS: '300',
  };
}


/** The mails to an address, and the code of the newest. */
function mailsTo(smtp: Smtp, address: string): Mail[] {
  return smtp.state.delivered.filter((m) => m.to.includes(address));
}
function codeOf(mail: Mail): string {
  const code = /reset code is (\d{8})/.exec(mail.raw)?.[1];
  if (code === undefined) throw new Error(`no code in ${mail.raw.slice(0, 400)}`);
  return code;
}

function alertOf(page: PageResult): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1];
}

const post = (node: TestNode, steps: LoginSteps, form: Record<string, string>) =>
  postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, ...form }, steps.headers);

/** Opens a login for `username` up to the password page. */
async function atPasswordStep(node: TestNode, tenant: FlowTenant, username: string): Promise<{ steps: LoginSteps; page: PageResult }> {
  const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
  const page = await submitLoginName(node, steps, username);
  expect(page.status).toBe(200);
  return { steps, page };
}

/** Asks for a code on the password step and waits for the mail; returns the code. */
async function requestCode(node: TestNode, smtp: Smtp, steps: LoginSteps, address: string): Promise<string> {
  const before = mailsTo(smtp, address).length;
  const page = await post(node, steps, { action: 'reset.request' });
  expect(page.status).toBe(200);
  expect(page.text).toContain('name="code"');
  const mail = await waitFor('the reset mail', () => mailsTo(smtp, address)[before]);
  return codeOf(mail);
}

const reset = (node: TestNode, steps: LoginSteps, code: string, password = NEW_PASSWORD) =>
  post(node, steps, { action: 'reset.submit', code, password, passwordRepeat: password });

describe('password reset in the login UI', () => {
  let smtp: Smtp;
  let node: TestNode;
  let tenant: FlowTenant;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Codes live 2 minutes here, so one expires while the login request (longer) is still open.
    node = await startTestNode({ env: { ...nodeEnv(smtp), TESSERA_PASSWORD_RESET_CODE_TTL_MS: '120000' }, testClock: true });
    tenant = await createFlowTenant(node, REDIRECT_URI);
  });
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    await smtp?.close();
  });

  it('mails a code, sets the new password with it, ends the sessions and continues the login', async () => {
    const userId = await createHuman(node, 'pr-alice');
    const session = await api(node)('POST', '/resources/v3alpha/sessions', { checks: { user: { userId }, password: { password: PASSWORD } } });
    expect(session.status).toBe(201);
    const sessionId = session.body.details.id as string;
    expect((await api(node)('GET', `/resources/v3alpha/sessions/${sessionId}`)).status).toBe(200);

    const { steps, page } = await atPasswordStep(node, tenant, 'pr-alice');
    expect(page.text).toContain('Forgot password?');
    const code = await requestCode(node, smtp, steps, 'pr-alice@example.com');
    expect(mailsTo(smtp, 'pr-alice@example.com')[0]?.raw).toContain('From: Tessera <noreply@tessera.example>');

    // A wrong code is refused; the password rules are on the page.
    const wrong = await reset(node, steps, code === '00000000' ? '11111111' : '00000000');
    expect({ status: wrong.status, alert: alertOf(wrong) }).toEqual({ status: 400, alert: 'The code is wrong or was already used.' });
    expect(wrong.text).toContain('must be at least');
    // The right code with a password the policy refuses.
    const weak = await reset(node, steps, code, 'short');
    expect(alertOf(weak)).toBe('The password does not meet the password policy.');
    // The right code and a good password: the login continues to the client with a code.
    const done = await reset(node, steps, code);
    expect(done.status, done.text.slice(0, 300)).toBe(303);
    expect(new URL(done.location ?? 'x:/').searchParams.get('code')).toEqual(expect.any(String));

    // The session made before the reset ended.
    expect((await api(node)('GET', `/resources/v3alpha/sessions/${sessionId}`)).status).toBe(404);

    // The code is single-use.
    const again = await atPasswordStep(node, tenant, 'pr-alice');
    const reused = await reset(node, again.steps, code, 'An0ther-Passw0rd!');
    expect(alertOf(reused)).toBe('The code is wrong or was already used.');
    // The old password fails, the new one logs in.
    const old = await submitPassword(node, again.steps, PASSWORD);
    expect(old.status).toBe(400);
    const fresh = await submitPassword(node, again.steps, NEW_PASSWORD);
    expect(fresh.status).toBe(303);
    expect(mailsTo(smtp, 'pr-alice@example.com')).toHaveLength(1);
  });

  it('still asks a user with a verified TOTP for the code after the reset', async () => {
    const call = api(node);
    const userId = await createHuman(node, 'pr-tom');
    const added = await call('POST', `/resources/v3alpha/users/${userId}/totp`);
    expect(added.status).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(added.body.secret as string) });
    expect((await call('POST', `/resources/v3alpha/users/${userId}/totp/_verify`, { code: totp.generate() })).status).toBe(200);

    const { steps } = await atPasswordStep(node, tenant, 'pr-tom');
    const code = await requestCode(node, smtp, steps, 'pr-tom@example.com');
    const done = await reset(node, steps, code);
    // Not the client yet: the login page again, now asking for the TOTP code.
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^\/ui\/login\/login\?/);
    const otpPage = await getPage(node, done.location ?? '', steps.started.jar.header());
    expect(otpPage.text).toContain('value="otp"');
    const finished = await post(node, steps, { action: 'otp', code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    expect(finished.status, finished.text.slice(0, 300)).toBe(303);
    expect(new URL(finished.location ?? 'x:/').searchParams.get('code')).toEqual(expect.any(String));
  });

  it('refuses an expired code (test clock) and accepts a fresh one', async () => {
    await createHuman(node, 'pr-bob');
    const { steps } = await atPasswordStep(node, tenant, 'pr-bob');
    const code = await requestCode(node, smtp, steps, 'pr-bob@example.com');
    node.advanceClock(3 * 60_000);
    const expired = await reset(node, steps, code);
    expect(alertOf(expired)).toBe('The code has expired. Send a new code.');
    const fresh = await requestCode(node, smtp, steps, 'pr-bob@example.com');
    const done = await reset(node, steps, fresh);
    expect(done.status).toBe(303);
    expect(await logInWithFetch(node, codeRequest(node, tenant.clientId, REDIRECT_URI), 'pr-bob', NEW_PASSWORD)).toContain('code=');
  });

  it('sends nothing for an unknown login name but shows the same page', async () => {
    const { steps } = await atPasswordStep(node, tenant, 'pr-nobody');
    const before = smtp.state.attempts;
    const page = await post(node, steps, { action: 'reset.request' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="code"');
    expect(alertOf(await reset(node, steps, '12345678'))).toBe('The code is wrong or was already used.');
    // Control: a known user's request in the same period reaches the server.
    await createHuman(node, 'pr-carol');
    const known = await atPasswordStep(node, tenant, 'pr-carol');
    await requestCode(node, smtp, known.steps, 'pr-carol@example.com');
    expect(smtp.state.delivered.some((m) => m.to.includes('pr-nobody@example.com'))).toBe(false);
    expect(smtp.state.attempts).toBe(before + 1);
  });
});

describe('password reset over the user API', () => {
  let smtp: Smtp;
  let node: TestNode;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    node = await startTestNode({ env: nodeEnv(smtp) });
  });
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    await smtp?.close();
  });

  it('mails a code on request and sets the password with it; a wrong code is a 400 naming the field', async () => {
    const call = api(node);
    const userId = await createHuman(node, 'api-frank');
    const session = await call('POST', '/resources/v3alpha/sessions', { checks: { user: { userId }, password: { password: PASSWORD } } });
    expect(session.status).toBe(201);
    const requested = await call('POST', `/resources/v3alpha/users/${userId}/password/_reset`, {});
    expect(requested.status, JSON.stringify(requested.body)).toBe(200);
    const code = codeOf(await waitFor('the reset mail', () => mailsTo(smtp, 'api-frank@example.com')[0]));

    const wrong = await call('POST', `/resources/v3alpha/users/${userId}/_set_password`, { password: NEW_PASSWORD, changeRequired: false, verificationCode: code === '00000000' ? '11111111' : '00000000' });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain('password.verificationCode');
    const weak = await call('POST', `/resources/v3alpha/users/${userId}/_set_password`, { password: 'short', changeRequired: false, verificationCode: code });
    expect(weak.status).toBe(400);
    expect(JSON.stringify(weak.body)).toContain('password.password');
    const done = await call('POST', `/resources/v3alpha/users/${userId}/_set_password`, { password: NEW_PASSWORD, changeRequired: false, verificationCode: code });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((await call('GET', `/resources/v3alpha/sessions/${session.body.details.id}`)).status).toBe(404);
    const reused = await call('POST', `/resources/v3alpha/users/${userId}/_set_password`, { password: 'An0ther-Passw0rd!', changeRequired: false, verificationCode: code });
    expect(reused.status).toBe(400);
    // The new password checks; the old one does not.
    expect((await call('POST', '/resources/v3alpha/sessions', { checks: { user: { userId }, password: { password: NEW_PASSWORD } } })).status).toBe(201);
    expect((await call('POST', '/resources/v3alpha/sessions', { checks: { user: { userId }, password: { password: PASSWORD } } })).status).not.toBe(201);
  });

  it("sends through the instance's active SMTP provider and shows its last error until a message is accepted", async () => {
    const call = api(node);
    const own = await startSmtpServer();
    try {
      own.state.refusing = true;
      const created = await call('POST', '/resources/v3alpha/smtp_providers', {
        description: 'Own mail',
        host: '127.0.0.1',
        port: own.port,
        tlsMode: 'SMTP_TLS_MODE_NONE',
        senderAddress: 'own@tessera.example',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const providerId = created.body.details.id as string;
      expect((await call('POST', `/resources/v3alpha/smtp_providers/${providerId}/_activate`, {})).status).toBe(200);
      expect((await call('GET', `/resources/v3alpha/smtp_providers/${providerId}`)).body.smtpProvider.lastError).toBeUndefined();

      const userId = await createHuman(node, 'api-hanna');
      expect((await call('POST', `/resources/v3alpha/users/${userId}/password/_reset`, {})).status).toBe(200);
      const failed = await waitFor('the provider error', async () => {
        const got = await call('GET', `/resources/v3alpha/smtp_providers/${providerId}`);
        return got.body.smtpProvider.lastError;
      });
      expect(failed.message).toContain('451');
      expect(failed.date).toEqual(expect.any(String));
      // The provider accepts again: the retry delivers through it (not the default server) and the error clears.
      own.state.refusing = false;
      await waitFor('the delivery through the provider', () => mailsTo(own, 'api-hanna@example.com')[0]);
      await waitFor('the error cleared', async () => ((await call('GET', `/resources/v3alpha/smtp_providers/${providerId}`)).body.smtpProvider.lastError === undefined ? true : undefined));
      expect(mailsTo(smtp, 'api-hanna@example.com')).toHaveLength(0);
      expect((await call('POST', `/resources/v3alpha/smtp_providers/${providerId}/_deactivate`, {})).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe('the outbox across a crash', () => {
  let smtp: Smtp;
  let node: TestNode;

  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    await smtp?.close();
  });

  it('delivers a message queued before SIGKILL exactly once after the restart', async () => {
    smtp = await startSmtpServer();
    node = await startTestNode({ env: { ...nodeEnv(smtp), TESSERA_OUTBOX_BACKOFF_MS: '60000' } });
    const tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'crash-dave');
    smtp.state.refusing = true;
    const { steps } = await atPasswordStep(node, tenant, 'crash-dave');
    const page = await post(node, steps, { action: 'reset.request' });
    expect(page.status).toBe(200);
    // The first attempt was refused (451): the message is pending, its retry a minute away.
    await waitFor('the refused attempt', () => (smtp.state.attempts >= 1 ? true : undefined));
    const metrics = await waitFor('the failed attempt in the metrics', async () => {
      const text = await (await fetch(`${node.baseUrl}/metrics`)).text();
      return text.includes('tessera_outbox_deliveries_total{kind="mail",result="failed"} 1') ? text : undefined;
    });
    expect(metrics).toContain('tessera_outbox_pending 1');
    expect(smtp.state.delivered).toHaveLength(0);
    await waitFor('the failure logged', () => (node.logs.some((l) => l.msg === 'outbox message delivery failed; will retry') ? true : undefined));

    await node.kill();
    smtp.state.refusing = false;
    // The restarted node picks the pending message up at start; its backoff was a minute, so the clock is moved past it.
    node = await startTestNode({ dataDir: node.dataDir, env: { ...nodeEnv(smtp), TESSERA_OUTBOX_BACKOFF_MS: '60000' }, testClock: true });
    node.advanceClock(61_000);
    const mail = await waitFor('the mail after the restart', () => mailsTo(smtp, 'crash-dave@example.com')[0]);
    await waitFor('nothing pending', async () => ((await (await fetch(`${node.baseUrl}/metrics`)).text()).includes('tessera_outbox_pending 0') ? true : undefined));
    expect(mailsTo(smtp, 'crash-dave@example.com')).toHaveLength(1);

    // The code of the one mail resets the password.
    const again = await atPasswordStep(node, tenant, 'crash-dave');
    const done = await reset(node, again.steps, codeOf(mail));
    expect(done.status).toBe(303);

    // Another restart sends nothing again: the next mail to the user is the only new one.
    await node.stop();
    node = await startTestNode({ dataDir: node.dataDir, env: nodeEnv(smtp) });
    const later = await atPasswordStep(node, tenant, 'crash-dave');
    await requestCode(node, smtp, later.steps, 'crash-dave@example.com');
    expect(mailsTo(smtp, 'crash-dave@example.com')).toHaveLength(2);
  });
});

describe('an outbox message the server keeps refusing', () => {
  let smtp: Smtp;
  let node: TestNode;
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    await smtp?.close();
  });

  it('is retried with backoff, then abandoned after the last attempt, visibly', async () => {
    smtp = await startSmtpServer();
    smtp.state.refusing = true;
    node = await startTestNode({ env: { ...nodeEnv(smtp), TESSERA_OUTBOX_BACKOFF_MS: '100', TESSERA_OUTBOX_MAX_ATTEMPTS: '3' } });
    const userId = await createHuman(node, 'refused-ivy');
    expect((await api(node)('POST', `/resources/v3alpha/users/${userId}/password/_reset`, {})).status).toBe(200);
    const metrics = await waitFor('the abandoned message', async () => {
      const text = await (await fetch(`${node.baseUrl}/metrics`)).text();
      return text.includes('tessera_outbox_deliveries_total{kind="mail",result="abandoned"} 1') ? text : undefined;
    });
    // Three attempts: two failures retried, the third abandoned; nothing delivered, nothing pending.
    expect(metrics).toContain('tessera_outbox_deliveries_total{kind="mail",result="failed"} 2');
    expect(smtp.state.attempts).toBe(3);
    expect(smtp.state.delivered).toHaveLength(0);
    // The log line comes through the node's stdout pipe, which may be read after the metrics reply.
    await waitFor('the abandonment logged', () => (node.logs.some((l) => l.msg === 'outbox message abandoned after the last attempt') ? true : undefined));
    await waitFor('nothing pending', async () => ((await (await fetch(`${node.baseUrl}/metrics`)).text()).includes('tessera_outbox_pending 0') ? true : undefined));
    // Control: with the server accepting again, a new request is delivered.
    smtp.state.refusing = false;
    expect((await api(node)('POST', `/resources/v3alpha/users/${userId}/password/_reset`, {})).status).toBe(200);
    await waitFor('the new mail', () => mailsTo(smtp, 'refused-ivy@example.com')[0]);
    expect(smtp.state.attempts).toBe(4);
  });
});

describe('without any SMTP', () => {
  let node: TestNode;
  let tenant: FlowTenant;
  beforeAll(async () => {
    node = await startTestNode();
    tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'nomail-erin');
  });
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
  });

  it('answers the API request with 400 FailedPrecondition (delivery.mail_unavailable)', async () => {
    const userId = await createHuman(node, 'nomail-gus');
    const requested = await api(node)('POST', `/resources/v3alpha/users/${userId}/password/_reset`, {});
    expect(requested.status).toBe(400);
    expect(JSON.stringify(requested.body)).toContain('delivery.mail_unavailable');
    // Control: the same call on the same user is allowed otherwise (a password set by the admin works).
    expect((await api(node)('POST', `/resources/v3alpha/users/${userId}/_set_password`, { password: NEW_PASSWORD, changeRequired: false })).status).toBe(200);
  });

  it('hides "Forgot password?" and answers a forged request with the password page', async () => {
    const { steps, page } = await atPasswordStep(node, tenant, 'nomail-erin');
    expect(page.text).not.toContain('Forgot password?');
    expect(page.text).toContain('name="password"');
    const forged = await post(node, steps, { action: 'reset.request' });
    expect(forged.text).not.toContain('name="code"');
    expect(forged.text).toContain('name="password"');
  });
});
