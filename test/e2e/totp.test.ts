/**
 * TOTP as a second factor (#14), against a started node on a test clock, with fetch as a browser
 * without JavaScript: enrolment through the users API (secret and otpauth:// URI, the code
 * computed here with otpauth from the returned secret), a login with password + code whose ID
 * token says amr pwd+otp+mfa (control: a user without TOTP gets pwd only), a wrong code refused
 * (control: the right one accepted), a replayed code refused within its window (control: the
 * next step's code accepted), lockout after maxOtpAttempts failed codes (default 10; control:
 * not locked after 9), prompt=login asking for both factors again, removal, and bad input.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { PlatformUsers } from '../../src/gen/platform/resources/user/v3alpha/user_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';
import { codeRequest, csrfOf, getPage, openLogin, startLogin, postLogin, submitLoginName, submitPassword, type CodeRequest, type LoginSteps, type PageResult } from './login-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const BASE = '/resources/v3alpha/users';

const stores = [
  { name: 'LMDB', env: undefined as Record<string, string> | undefined, verdict: UNCONDITIONAL as Verdict },
  { name: 'PostgreSQL', env: { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: freshSchemaName(), TESSERA_MASTERKEY: 'e'.repeat(64) }, verdict: await meet(POSTGRES) },
];

let node: TestNode;
let tenant: FlowTenant;
let call: ReturnType<typeof api>;
/** The node's clock offset (what advanceClock added). */
let offset = 0;

function advance(ms: number): void {
  node.advanceClock(ms);
  offset += ms;
}

/** The code of the secret at the node's now (`stepsAhead` steps of 30 s later). */
function codeAt(secret: string, stepsAhead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offset + stepsAhead * 30_000 });
}

/** A 6-digit code that is none of the codes accepted now (the current step and one either side). */
function wrongCode(secret: string): string {
  const accepted = new Set([-1, 0, 1].map((s) => codeAt(secret, s)));
  let n = Number(codeAt(secret));
  do n = (n + 1) % 1_000_000;
  while (accepted.has(String(n).padStart(6, '0')));
  return String(n).padStart(6, '0');
}

function alertOf(page: PageResult): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1];
}

/** Creates a user and enrols a verified TOTP; returns its id and secret. */
async function enrolledUser(username: string): Promise<{ id: string; secret: string }> {
  const id = await createHuman(node, username);
  const added = await call('POST', `${BASE}/${id}/totp`);
  expect(added.status).toBe(200);
  const secret: string = added.body.secret;
  expect((await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(secret) })).status).toBe(200);
  return { id, secret };
}

interface OtpStep {
  readonly steps: LoginSteps;
  readonly request: CodeRequest;
  /** The page after the password (the TOTP step for an enrolled user). */
  readonly page: PageResult;
}

/** Login name and password; follows the redirect to the next page when there is one on the login UI. */
async function passwordStep(loginName: string, extra: Record<string, string> = {}): Promise<OtpStep> {
  const request = codeRequest(node, tenant.clientId, REDIRECT_URI, extra);
  const steps = await openLogin(node, request.url);
  expect((await submitLoginName(node, steps, loginName)).status).toBe(200);
  const posted = await submitPassword(node, steps, PASSWORD);
  const page = posted.status === 303 && posted.location?.startsWith('/ui/login/') === true ? await getPage(node, posted.location, steps.started.jar.header()) : posted;
  return { steps, request, page };
}

function submitCode(step: OtpStep, code: string): Promise<PageResult> {
  return postLogin(node, { authRequest: step.steps.started.authRequest, csrf: step.steps.csrf, action: 'otp', code }, step.steps.headers);
}

/** Exchanges the code of a login's final redirect: the access token and the ID token's claims. */
async function exchange(request: CodeRequest, location: string): Promise<{ accessToken: string; claims: Record<string, unknown> }> {
  const code = new URL(location).searchParams.get('code') ?? '';
  const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: REDIRECT_URI, code_verifier: request.verifier }),
  });
  expect(response.status).toBe(200);
  const tokens = (await response.json()) as { id_token: string; access_token: string };
  return { accessToken: tokens.access_token, claims: JSON.parse(Buffer.from(tokens.id_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown> };
}

async function idTokenClaims(request: CodeRequest, location: string): Promise<Record<string, unknown>> {
  return (await exchange(request, location)).claims;
}

describe.each(stores)('TOTP ($name)', ({ env, verdict }) => {
  beforeAll(async () => {
    if (verdict.outcome !== 'run') return;
    node = await startTestNode({ testClock: true, ...(env === undefined ? {} : { env }) });
    call = api(node);
    offset = 0;
    tenant = await createFlowTenant(node, REDIRECT_URI);
  });
  afterAll(async () => {
    if (verdict.outcome !== 'run') return;
    await node.stop();
    node.cleanup();
    if (env !== undefined) await dropSchema(env.TESSERA_DATABASE_SCHEMA ?? '');
  });

  describe('TOTP enrolment (users API)', () => {
    itIfMet(verdict, 'answers a base32 secret and an otpauth URI; the secret is not readable afterwards', async () => {
      const id = await createHuman(node, 'totp-enrol');
      const added = await call('POST', `${BASE}/${id}/totp`);
      expect(added.status).toBe(200);
      expect(added.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      const uri = new URL(added.body.uri);
      expect({ protocol: uri.protocol, host: uri.host, secret: uri.searchParams.get('secret'), digits: uri.searchParams.get('digits'), period: uri.searchParams.get('period') }).toEqual({
        protocol: 'otpauth:',
        host: 'totp',
        secret: added.body.secret,
        digits: '6',
        period: '30',
      });
      expect(decodeURIComponent(uri.pathname)).toContain('totp-enrol');
      const read = await call('GET', `${BASE}/${id}`);
      expect(JSON.stringify(read.body)).not.toContain(added.body.secret);
      expect(read.body.user.human.totpState).toBe('TOTP_STATE_UNVERIFIED');
      expect((await call('GET', `${BASE}/${await createHuman(node, 'totp-enrol-none')}`)).body.user.human.totpState, 'control').toBe('TOTP_STATE_NONE');
      const events = await call('POST', '/resources/v3alpha/events/_search', [{ aggregate: { aggregateType: 'user', aggregateId: id } }]);
      expect(events.status).toBe(200);
      const types = (events.body.result as { eventType: string }[]).map((e) => e.eventType);
      expect(types).toContain('user.human.mfa.otp.added');
      expect(JSON.stringify(events.body), 'the event holds the sealed secret only').not.toContain(added.body.secret);
    });

    itIfMet(verdict, 'refuses a wrong code and a malformed code naming the field; accepts the right code', async () => {
      const id = await createHuman(node, 'totp-verify');
      const { body } = await call('POST', `${BASE}/${id}/totp`);
      const wrong = await call('POST', `${BASE}/${id}/totp/_verify`, { code: wrongCode(body.secret) });
      expect({ status: wrong.status, fields: violatedFields(wrong.body) }).toEqual({ status: 400, fields: ['totp.code'] });
      for (const code of ['12345', 'abcdef', '1234567', '']) {
        const bad = await call('POST', `${BASE}/${id}/totp/_verify`, { code });
        expect({ code, status: bad.status, fields: violatedFields(bad.body) }).toEqual({ code, status: 400, fields: ['totp.code'] });
      }
      const right = await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(body.secret) });
      expect(right.status).toBe(200);
      const again = await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(body.secret, 1) });
      expect({ status: again.status, id: again.body.details?.[0]?.id }).toEqual({ status: 400, id: 'user.totp.already_verified' });
      const restart = await call('POST', `${BASE}/${id}/totp`);
      expect({ status: restart.status, id: restart.body.details?.[0]?.id }).toEqual({ status: 409, id: 'user.totp.exists' });
    });

    itIfMet(verdict, 'refuses verifying (400 naming totp.code) and removing (404) without an enrolment, and a machine user (400)', async () => {
      const id = await createHuman(node, 'totp-none');
      const verify = await call('POST', `${BASE}/${id}/totp/_verify`, { code: '123456' });
      expect({ status: verify.status, id: verify.body.details?.[0]?.id, fields: violatedFields(verify.body) }).toEqual({ status: 400, id: 'user.totp.not_enrolled', fields: ['totp.code'] });
      const remove = await call('DELETE', `${BASE}/${id}/totp`);
      expect({ status: remove.status, id: remove.body.details?.[0]?.id }).toEqual({ status: 404, id: 'user.totp.not_found' });
      const machine = await call('POST', BASE, { machine: { username: 'totp-bot', name: 'Bot' } });
      expect(machine.status).toBe(201);
      const refused = await call('POST', `${BASE}/${machine.body.details.id}/totp`);
      expect(refused.status).toBe(400);
      // Control: a human can enrol and remove.
      expect((await call('POST', `${BASE}/${id}/totp`)).status).toBe(200);
      expect((await call('DELETE', `${BASE}/${id}/totp`)).status).toBe(200);
    });

    itIfMet(verdict, 'lets a user enrol their own TOTP without a permission; not another user\'s', async () => {
      const id = await createHuman(node, 'totp-self');
      const other = await createHuman(node, 'totp-self-other');
      // The platform's own API as audience (docs/oidc/token.md): the user's token can call it.
      const login = await passwordStep('totp-self', { scope: 'openid urn:platform:iam:org:project:id:platform:aud' });
      const { accessToken } = await exchange(login.request, login.page.location ?? '');
      const asSelf = api(node, accessToken);
      const foreign = await asSelf('POST', `${BASE}/${other}/totp`);
      expect(foreign.status).toBe(403);
      const added = await asSelf('POST', `${BASE}/${id}/totp`);
      expect(added.status).toBe(200);
      expect((await asSelf('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(added.body.secret) })).status).toBe(200);
      expect((await asSelf('DELETE', `${BASE}/${id}/totp`)).status).toBe(200);
    });

    itIfMet(verdict, 'works over gRPC too', async () => {
      const id = await createHuman(node, 'totp-grpc');
      const client = createClient(PlatformUsers, createGrpcTransport({ baseUrl: node.grpcUrl }));
      const headers = { headers: { authorization: `Bearer ${node.adminToken}` } };
      const added = await client.addTOTP({ id }, headers);
      expect(added.secret).toMatch(/^[A-Z2-7]{32}$/);
      await client.verifyTOTP({ id, totp: { code: codeAt(added.secret) } }, headers);
      await client.removeTOTP({ id }, headers);
    });
  });

  describe('TOTP at login', () => {
    itIfMet(verdict, 'asks for the code after the password; amr is pwd+otp+mfa (control: without TOTP only pwd)', async () => {
      await createHuman(node, 'totp-plain');
      const plain = await passwordStep('totp-plain');
      expect(plain.page.status).toBe(303);
      expect((await idTokenClaims(plain.request, plain.page.location ?? '')).amr).toEqual(['pwd']);

      const { secret } = await enrolledUser('totp-login');
      advance(30_000); // the enrolment used this step's code
      const step = await passwordStep('totp-login');
      expect(step.page.status).toBe(200);
      expect(step.page.text).toContain('name="code"');
      expect(step.page.text).not.toContain('<script');
      const done = await submitCode(step, codeAt(secret));
      expect(done.status).toBe(303);
      expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?/);
      const claims = await idTokenClaims(step.request, done.location ?? '');
      expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
      // The session behind it (sid) shows both factors; the password-only one has no totp factor.
      const session = (await call('GET', `/resources/v3alpha/sessions/${String(claims.sid)}`)).body.session;
      expect(session.amr).toEqual(['pwd', 'otp', 'mfa']);
      expect(session.factors).toMatchObject({ password: { verifiedAt: expect.any(String) }, totp: { verifiedAt: expect.any(String) } });
      const plainAgain = await passwordStep('totp-plain');
      const plainSid = String((await idTokenClaims(plainAgain.request, plainAgain.page.location ?? '')).sid);
      expect((await call('GET', `/resources/v3alpha/sessions/${plainSid}`)).body.session.factors.totp, 'control').toBeUndefined();
    });

    itIfMet(verdict, 'refuses a wrong code with the step again and an error; the right code then passes', async () => {
      const { secret } = await enrolledUser('totp-wrong');
      advance(30_000);
      const step = await passwordStep('totp-wrong');
      const wrong = await submitCode(step, wrongCode(secret));
      expect({ status: wrong.status, location: wrong.location }).toEqual({ status: 400, location: null });
      expect(wrong.text).toContain('name="code"');
      expect(alertOf(wrong)).toContain('The code is wrong');
      const malformed = await submitCode(step, '12ab');
      expect({ status: malformed.status, alert: alertOf(malformed) }).toEqual({ status: 400, alert: alertOf(wrong) });
      const right = await submitCode(step, codeAt(secret));
      expect(right.status).toBe(303);
    });

    itIfMet(verdict, 'refuses a replayed code within its window; the next step\'s code is accepted', async () => {
      const { secret } = await enrolledUser('totp-replay');
      advance(30_000);
      const code = codeAt(secret);
      const first = await passwordStep('totp-replay');
      expect((await submitCode(first, code)).status).toBe(303);

      const second = await passwordStep('totp-replay');
      const replay = await submitCode(second, code);
      expect({ status: replay.status, alert: alertOf(replay) }).toEqual({ status: 400, alert: expect.stringContaining('already used') });
      advance(30_000);
      const next = await submitCode(second, codeAt(secret));
      expect(next.status).toBe(303);
    });

    itIfMet(verdict, 'reuses the two-factor session in the same browser (amr kept); prompt=login asks for both factors again', async () => {
      const { secret } = await enrolledUser('totp-prompt');
      advance(30_000);
      const first = await passwordStep('totp-prompt');
      const done = await submitCode(first, codeAt(secret));
      expect(done.status).toBe(303);
      const jar = first.steps.started.jar;
      jar.take(done.response);
      expect(jar.names()).toContain('tessera_sessions');

      // Control: the same browser without prompt=login is signed in at once, with the same amr.
      const reuse = codeRequest(node, tenant.clientId, REDIRECT_URI);
      const reused = await fetch(reuse.url, { redirect: 'manual', headers: { cookie: jar.header() } });
      const location = reused.headers.get('location') ?? '';
      expect(location).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?/);
      expect((await idTokenClaims(reuse, location)).amr).toEqual(['pwd', 'otp', 'mfa']);

      // prompt=login in the same browser: login name, password, then the code again.
      const request = codeRequest(node, tenant.clientId, REDIRECT_URI, { prompt: 'login' });
      const started = await startLogin(node, request.url, jar);
      const page = await getPage(node, started.location, jar.header());
      const steps: LoginSteps = { started, csrf: csrfOf(page.text), headers: { cookie: jar.header(), origin: node.baseUrl } };
      expect((await submitLoginName(node, steps, 'totp-prompt')).status).toBe(200);
      const posted = await submitPassword(node, steps, PASSWORD);
      expect(posted.location).toMatch(/^\/ui\/login\//);
      const otpPage = await getPage(node, posted.location ?? '', jar.header());
      expect(otpPage.text).toContain('name="code"');
      advance(30_000);
      const again = await postLogin(node, { authRequest: started.authRequest, csrf: steps.csrf, action: 'otp', code: codeAt(secret) }, steps.headers);
      expect(again.status).toBe(303);
    });

    itIfMet(verdict, 'does not reuse a password-only session after the enrolment; max_age asks for both factors again', async () => {
      const id = await createHuman(node, 'totp-late');
      const first = await passwordStep('totp-late');
      expect(first.page.status).toBe(303);
      const jar = first.steps.started.jar;
      jar.take(first.page.response);
      const silent = async (extra: Record<string, string> = {}) => {
        const response = await fetch(codeRequest(node, tenant.clientId, REDIRECT_URI, extra).url, { redirect: 'manual', headers: { cookie: jar.header() } });
        return response.headers.get('location') ?? '';
      };
      // Control: before the enrolment the browser session is reused.
      expect(await silent()).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?/);
      const added = await call('POST', `${BASE}/${id}/totp`);
      expect((await call('POST', `${BASE}/${id}/totp/_verify`, { code: codeAt(added.body.secret) })).status).toBe(200);
      expect(await silent(), 'a password-only session is not enough any more').toMatch(/^\/ui\/login\/login\?/);

      // A two-factor login in this browser is reused, until max_age is exceeded.
      advance(30_000);
      const request = codeRequest(node, tenant.clientId, REDIRECT_URI);
      const started = await startLogin(node, request.url, jar);
      const page = await getPage(node, started.location, jar.header());
      const steps: LoginSteps = { started, csrf: csrfOf(page.text), headers: { cookie: jar.header(), origin: node.baseUrl } };
      expect((await submitLoginName(node, steps, 'totp-late')).status).toBe(200);
      expect((await submitPassword(node, steps, PASSWORD)).location).toMatch(/^\/ui\/login\//);
      const done = await postLogin(node, { authRequest: started.authRequest, csrf: steps.csrf, action: 'otp', code: codeAt(added.body.secret) }, steps.headers);
      expect(done.status).toBe(303);
      jar.take(done.response);
      expect(await silent({ max_age: '60' })).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?/);
      advance(120_000);
      expect(await silent({ max_age: '60' }), 'older than max_age').toMatch(/^\/ui\/login\/login\?/);
    });

    itIfMet(verdict, 'locks the user after maxOtpAttempts (default 10) failed codes; not after 9', async () => {
      expect((await call('GET', '/settings/v3alpha/users')).body.settings).toMatchObject({ maxOtpAttempts: 10 });
      const { id, secret } = await enrolledUser('totp-lock');
      advance(30_000);
      const step = await passwordStep('totp-lock');
      for (let i = 0; i < 9; i++) expect((await submitCode(step, wrongCode(secret))).status).toBe(400);
      expect((await call('GET', `${BASE}/${id}`)).body.user.state, 'not locked after 9').toBe('USER_STATE_ACTIVE');
      const tenth = await submitCode(step, wrongCode(secret));
      expect(alertOf(tenth)).toContain('locked');
      expect((await call('GET', `${BASE}/${id}`)).body.user.state).toBe('USER_STATE_LOCKED');
      const right = await submitCode(step, codeAt(secret));
      expect({ status: right.status, alert: alertOf(right) }).toEqual({ status: 400, alert: expect.stringContaining('locked') });

      // Unlocked, the right code passes (control).
      expect((await call('POST', `${BASE}/${id}/_unlock`)).status).toBe(200);
      const again = await passwordStep('totp-lock');
      expect((await submitCode(again, codeAt(secret))).status).toBe(303);
    });

    itIfMet(verdict, 'maxOtpAttempts is a user setting (0..1000, instance only)', async () => {
      const bad = await call('PATCH', '/settings/v3alpha/users', { maxOtpAttempts: -1 });
      expect({ status: bad.status, fields: violatedFields(bad.body) }).toEqual({ status: 400, fields: ['settings.maxOtpAttempts'] });
      expect((await call('PATCH', '/settings/v3alpha/users', { maxOtpAttempts: 12 })).status).toBe(200);
      expect((await call('GET', '/settings/v3alpha/users')).body.settings.maxOtpAttempts).toBe(12);
      expect((await call('PATCH', '/settings/v3alpha/users', { maxOtpAttempts: 10 })).status).toBe(200);
    });

    itIfMet(verdict, 'export carries the secret only with with_otp; import makes it a verified TOTP that logs in with a code', async () => {
      const { id, secret } = await enrolledUser('totp-export');
      const exportAll = async (withOtp: boolean) => {
        const response = await call('POST', '/admin/v1/export', { org_ids: [], with_passwords: true, with_otp: withOtp, response_output: true, timeout: '1m' });
        expect(response.status).toBe(200);
        const humans = (response.body.orgs as { humanUsers?: { userId: string; user: Record<string, any> }[] }[]).flatMap((o) => o.humanUsers ?? []);
        return humans.find((h) => h.userId === id)!.user;
      };
      expect((await exportAll(false)).otpCode, 'without with_otp').toBeUndefined();
      const exported = await exportAll(true);
      expect(exported.otpCode).toBe(secret);

      const human = (userId: string, userName: string, otpCode: string) => ({
        userId,
        user: { userName, profile: { firstName: 'O', lastName: 'T' }, email: { email: `${userName}@example.com` }, hashedPassword: exported.hashedPassword, otpCode },
      });
      const doc = { orgs: [{ orgId: 'otp-import-org', org: { name: 'OTP Import Org' }, humanUsers: [human('otp-imported', 'otp-imported', secret), human('otp-bad', 'otp-bad', 'not-base32!')] }] };
      const imported = await call('POST', '/admin/v1/import', { timeout: '5m', data_orgsv1: doc });
      expect(imported.status).toBe(200);
      expect(imported.body.errors).toEqual([expect.objectContaining({ type: 'human_user_otp', id: 'otp-bad', code: 'import.value_invalid' })]);
      expect(JSON.stringify(imported.body.errors)).toContain('user.otpCode');

      // The imported user: password, then a code of the same secret (a fresh step), amr pwd+otp+mfa.
      const loginName: string = (await call('GET', `${BASE}/otp-imported`)).body.user.preferredLoginName;
      advance(30_000);
      const step = await passwordStep(loginName);
      expect(step.page.text).toContain('name="code"');
      const done = await submitCode(step, codeAt(secret));
      expect(done.status).toBe(303);
      expect((await idTokenClaims(step.request, done.location ?? '')).amr).toEqual(['pwd', 'otp', 'mfa']);
      // Control: the user whose otpCode was refused was imported without a TOTP.
      const bad = await passwordStep((await call('GET', `${BASE}/otp-bad`)).body.user.preferredLoginName);
      expect(bad.page.status).toBe(303);
    });

    itIfMet(verdict, 'a recovery code logs in once in place of a TOTP code; another one of the set still works', async () => {
      const plain = await createHuman(node, 'totp-recovery-none');
      const refused = await call('POST', `${BASE}/${plain}/recovery_codes`);
      expect({ status: refused.status, id: refused.body.details?.[0]?.id }).toEqual({ status: 400, id: 'user.totp.not_verified' });
      const { id } = await enrolledUser('totp-recovery');
      const generated = await call('POST', `${BASE}/${id}/recovery_codes`);
      expect(generated.status).toBe(200);
      const codes: string[] = generated.body.codes;
      expect((await call('GET', `${BASE}/${id}`)).body.user.human).toMatchObject({ totpState: 'TOTP_STATE_VERIFIED', recoveryCodesLeft: 10 });
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);

      const first = await passwordStep('totp-recovery');
      const done = await submitCode(first, codes[0]!.toUpperCase());
      expect(done.status, 'case and dashes do not matter').toBe(303);
      expect((await idTokenClaims(first.request, done.location ?? '')).amr).toEqual(['pwd', 'otp', 'mfa']);

      const second = await passwordStep('totp-recovery');
      const reused = await submitCode(second, codes[0]!);
      expect({ status: reused.status, alert: alertOf(reused) }).toEqual({ status: 400, alert: expect.stringContaining('The code is wrong') });
      expect((await submitCode(second, codes[1]!.replaceAll('-', ''))).status, 'another code of the set').toBe(303);

      // A new set replaces the old one; removing the TOTP removes the codes.
      const renewed: string[] = (await call('POST', `${BASE}/${id}/recovery_codes`)).body.codes;
      const third = await passwordStep('totp-recovery');
      expect((await submitCode(third, codes[2]!)).status, 'a code of the replaced set').toBe(400);
      expect((await submitCode(third, renewed[0]!)).status).toBe(303);
      expect((await call('DELETE', `${BASE}/${id}/totp`)).status).toBe(200);
      const after = await call('POST', `${BASE}/${id}/recovery_codes`);
      expect(after.status).toBe(400);
    });

    itIfMet(verdict, 'a removed TOTP is no longer asked for', async () => {
      const { id } = await enrolledUser('totp-removed');
      expect((await call('DELETE', `${BASE}/${id}/totp`)).status).toBe(200);
      const step = await passwordStep('totp-removed');
      expect(step.page.status).toBe(303);
      expect((await idTokenClaims(step.request, step.page.location ?? '')).amr).toEqual(['pwd']);
    });
  });
});
