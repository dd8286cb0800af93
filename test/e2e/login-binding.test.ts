/**
 * Login CSRF / session fixation (#12 item 2) against a started node, on LMDB and PostgreSQL,
 * with fetch as the "browser": the authorization endpoint binds the auth request to the browser
 * with a cookie, and every login step refuses a browser without it (the "start again" page,
 * 403), as well as a POST with a foreign Origin or `Sec-Fetch-Site: cross-site`; the same
 * browser logs in (positive control). Concurrent POSTs of the final step yield one code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';
import { getPage, openLogin, postLogin, startLogin, submitLoginName, submitPassword } from './login-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const START_AGAIN = 'Start the login again from the application.';

function authorizationUrl(node: TestNode, clientId: string): URL {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth/v2/authorize', node.baseUrl);
  const params = {
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

const codeOf = (location: string | null): string | null => (location === null || !location.startsWith(REDIRECT_URI) ? null : new URL(location).searchParams.get('code'));

const stores = [
  { name: 'LMDB', env: undefined as Record<string, string> | undefined, verdict: UNCONDITIONAL as Verdict },
  { name: 'PostgreSQL', env: { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: freshSchemaName(), TESSERA_MASTERKEY: 'b'.repeat(64) }, verdict: await meet(POSTGRES) },
];

describe.each(stores)('login bound to the browser ($name)', ({ name, env, verdict }) => {
  let node: TestNode;
  let tenant: FlowTenant;

  beforeAll(async () => {
    if (verdict.outcome !== 'run') return;
    node = await startTestNode(env === undefined ? {} : { env });
    tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'bound-alice');
  });
  afterAll(async () => {
    if (verdict.outcome !== 'run') return;
    await node.stop();
    node.cleanup();
    if (env !== undefined) await dropSchema(env.TESSERA_DATABASE_SCHEMA ?? '');
  });

  itIfMet(verdict, `sets a short-lived, HttpOnly, SameSite=Lax cookie scoped to the login UI`, async () => {
    const started = await startLogin(node, authorizationUrl(node, tenant.clientId));
    expect(started.bindingCookie).toMatch(new RegExp(`^tessera_login_${started.authRequest}=[A-Za-z0-9_-]{43}; Max-Age=600; Path=/ui/login; HttpOnly; SameSite=Lax$`));
  });

  itIfMet(verdict, 'refuses the login page and its form without the binding cookie; the same browser continues', async () => {
    const steps = await openLogin(node, authorizationUrl(node, tenant.clientId));
    const other = await startLogin(node, authorizationUrl(node, tenant.clientId)); // another browser's binding

    for (const cookie of ['', other.jar.header()]) {
      const page = await getPage(node, steps.started.location, cookie);
      expect({ status: page.status, startAgain: page.text.includes(START_AGAIN), csrfLeaked: page.text.includes(steps.csrf) }).toEqual({ status: 403, startAgain: true, csrfLeaked: false });
    }
    const form = { authRequest: steps.started.authRequest, csrf: steps.csrf, action: 'loginname', loginName: 'bound-alice' };
    const withoutCookie = await postLogin(node, form, { origin: node.baseUrl });
    expect({ status: withoutCookie.status, startAgain: withoutCookie.text.includes(START_AGAIN) }).toEqual({ status: 403, startAgain: true });
    const withOtherCookie = await postLogin(node, form, { origin: node.baseUrl, cookie: other.jar.header() });
    expect(withOtherCookie.status).toBe(403);

    // Positive control: the browser that started the request logs in and gets a code.
    const passwordPage = await submitLoginName(node, steps, 'bound-alice');
    expect(passwordPage.status).toBe(200);
    const done = await submitPassword(node, steps, PASSWORD);
    expect({ status: done.status, code: codeOf(done.location) }).toEqual({ status: 303, code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  itIfMet(verdict, 'refuses a POST with a foreign Origin or Sec-Fetch-Site: cross-site, even with the cookie', async () => {
    const steps = await openLogin(node, authorizationUrl(node, tenant.clientId));
    expect((await submitLoginName(node, steps, 'bound-alice')).status).toBe(200);
    const cookie = steps.started.jar.header();
    const foreign = await submitPassword(node, steps, PASSWORD, { cookie, origin: 'https://attacker.example' });
    expect({ status: foreign.status, code: codeOf(foreign.location), startAgain: foreign.text.includes(START_AGAIN) }).toEqual({ status: 403, code: null, startAgain: true });
    const crossSite = await submitPassword(node, steps, PASSWORD, { cookie, 'sec-fetch-site': 'cross-site' });
    expect({ status: crossSite.status, code: codeOf(crossSite.location) }).toEqual({ status: 403, code: null });

    // Positive control: same origin, as a browser sends it from the login page.
    const same = await submitPassword(node, steps, PASSWORD, { cookie, origin: node.baseUrl, 'sec-fetch-site': 'same-origin' });
    expect({ status: same.status, code: codeOf(same.location) }).toEqual({ status: 303, code: expect.any(String) });
  });

  itIfMet(verdict, 'answers concurrent POSTs of the final step with exactly one code', async () => {
    const steps = await openLogin(node, authorizationUrl(node, tenant.clientId));
    expect((await submitLoginName(node, steps, 'bound-alice')).status).toBe(200);
    const replies = await Promise.all(Array.from({ length: 8 }, () => submitPassword(node, steps, PASSWORD)));
    const codes = replies.map((r) => codeOf(r.location)).filter((c) => c !== null);
    expect(codes, `${name}: statuses ${replies.map((r) => r.status).join(',')}`).toHaveLength(1);
    // The others were answered, without a code and without a server error.
    expect(replies.every((r) => r.status < 500)).toBe(true);
  });
});
