/**
 * Logout CSRF (#12 item 5) against a started node, on LMDB and PostgreSQL, with fetch as the
 * browser: end_session without id_token_hint shows a confirmation page and ends nothing until
 * the page's form is posted back with its token by the same browser (cookie, own Origin); a
 * missing, wrong, reused or foreign confirmation is refused; with a valid id_token_hint the
 * logout happens at once (positive control). Whether the browser still has a session is asked
 * the protocol's way: prompt=none answers with a code or login_required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';
import { codeRequest, CookieJar, csrfOf, logInWithFetch } from './login-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const LOGGED_OUT_URI = `${REDIRECT_URI}/logged-out`;
const END_SESSION = '/oidc/v1/end_session';

const stores = [
  { name: 'LMDB', env: undefined as Record<string, string> | undefined, verdict: UNCONDITIONAL as Verdict },
  { name: 'PostgreSQL', env: { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: freshSchemaName(), TESSERA_MASTERKEY: 'c'.repeat(64) }, verdict: await meet(POSTGRES) },
];

describe.each(stores)('end_session confirmation ($name)', ({ env, verdict }) => {
  let node: TestNode;
  let tenant: FlowTenant;

  beforeAll(async () => {
    if (verdict.outcome !== 'run') return;
    node = await startTestNode(env === undefined ? {} : { env });
    tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'logout-alice');
  });
  afterAll(async () => {
    if (verdict.outcome !== 'run') return;
    await node.stop();
    node.cleanup();
    if (env !== undefined) await dropSchema(env.TESSERA_DATABASE_SCHEMA ?? '');
  });

  /** A browser (cookie jar) with a session of logout-alice; returns the jar and the redirect with the code. */
  async function signedIn(): Promise<{ jar: CookieJar; location: string; verifier: string }> {
    const jar = new CookieJar();
    const request = codeRequest(node, tenant.clientId, REDIRECT_URI);
    const location = await logInWithFetch(node, request, 'logout-alice', PASSWORD, jar);
    return { jar, location, verifier: request.verifier };
  }

  /** Whether the browser's session is alive: prompt=none gets a code, else login_required. */
  async function hasSession(jar: CookieJar): Promise<boolean> {
    const response = await fetch(codeRequest(node, tenant.clientId, REDIRECT_URI, { prompt: 'none' }).url, { redirect: 'manual', headers: { cookie: jar.header() } });
    const params = new URL(response.headers.get('location') ?? '').searchParams;
    if (params.get('error') === 'login_required') return false;
    if (params.get('code') !== null) return true;
    throw new Error(`prompt=none: ${response.status} ${params}`);
  }

  async function endSession(method: 'GET' | 'POST', params: Record<string, string>, headers: Record<string, string>): Promise<{ status: number; text: string; location: string | null; response: Response }> {
    const query = new URLSearchParams(params).toString();
    const response =
      method === 'GET'
        ? await fetch(`${node.baseUrl}${END_SESSION}?${query}`, { redirect: 'manual', headers })
        : await fetch(`${node.baseUrl}${END_SESSION}`, { method: 'POST', body: query, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
    return { status: response.status, text: await response.text(), location: response.headers.get('location'), response };
  }

  const logoutParams = () => ({ client_id: tenant.clientId, post_logout_redirect_uri: LOGGED_OUT_URI, state: 'bye<&>' });

  itIfMet(verdict, `asks before ending the sessions; the confirmation of the same browser ends them and redirects as before`, async () => {
    const { jar } = await signedIn();
    const page = await endSession('GET', logoutParams(), { cookie: jar.header() });
    expect(page.status).toBe(200);
    expect(page.response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post" action="/oidc/v1/end_session">');
    expect(page.text).toContain('value="bye&#60;&#38;&#62;"'); // escaped
    expect(page.text).not.toContain('<script');
    expect(page.response.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9");
    expect(await hasSession(jar), 'the GET ends nothing').toBe(true);
    jar.take(page.response);
    expect(jar.names()).toContain('tessera_logout');

    const form = Object.fromEntries([...page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))]));
    expect(form).toEqual({ ...logoutParams(), csrf: csrfOf(page.text) });
    const confirmed = await endSession('POST', form, { cookie: jar.header(), origin: node.baseUrl });
    expect(confirmed.status).toBe(303);
    const location = new URL(confirmed.location ?? '');
    expect({ at: `${location.origin}${location.pathname}`, state: location.searchParams.get('state') }).toEqual({ at: LOGGED_OUT_URI, state: 'bye<&>' });
    jar.take(confirmed.response);
    expect(await hasSession(jar)).toBe(false);
    expect(jar.names()).not.toContain('tessera_logout');

    // Without a post_logout_redirect_uri: the same confirmation, then the signed-out page.
    const second = await signedIn();
    const plain = await endSession('GET', {}, { cookie: second.jar.header() });
    second.jar.take(plain.response);
    const done = await endSession('POST', { csrf: csrfOf(plain.text) }, { cookie: second.jar.header() });
    expect({ status: done.status, signedOut: done.text.includes('You are signed out.') }).toEqual({ status: 200, signedOut: true });
    expect(await hasSession(second.jar)).toBe(false);
  });

  itIfMet(verdict, 'refuses a POST without, with a wrong, a reused or another browser\'s token, and from another site; the sessions stay', async () => {
    const { jar } = await signedIn();
    const page = await endSession('GET', logoutParams(), { cookie: jar.header() });
    jar.take(page.response);
    const csrf = csrfOf(page.text);
    const same = { cookie: jar.header(), origin: node.baseUrl };

    const withoutToken = await endSession('POST', logoutParams(), same);
    expect({ status: withoutToken.status, confirmationAgain: withoutToken.text.includes('name="csrf"') }).toEqual({ status: 200, confirmationAgain: true });
    const wrong = await endSession('POST', { ...logoutParams(), csrf: 'A'.repeat(43) }, same);
    expect(wrong.status).toBe(403);
    const otherBrowser = new CookieJar();
    const otherPage = await endSession('GET', logoutParams(), {});
    otherBrowser.take(otherPage.response);
    const foreignCookie = await endSession('POST', { ...logoutParams(), csrf }, { cookie: `${otherBrowser.header()}; ${jar.header().replace(/tessera_logout=[^;]+(; )?/, '')}`, origin: node.baseUrl });
    expect(foreignCookie.status, 'the token of this browser with another browser\'s binding cookie').toBe(403);

    const fresh = await endSession('GET', logoutParams(), { cookie: jar.header() });
    const freshCsrf = csrfOf(fresh.text);
    const foreignOrigin = await endSession('POST', { ...logoutParams(), csrf: freshCsrf }, { cookie: jar.header(), origin: 'https://attacker.example' });
    expect(foreignOrigin.status).toBe(403);
    const crossSite = await endSession('POST', { ...logoutParams(), csrf: freshCsrf }, { cookie: jar.header(), 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await hasSession(jar), 'nothing above ended the session').toBe(true);

    // Positive control: a fresh token with the browser's cookie and own origin works, once.
    const last = await endSession('GET', logoutParams(), { cookie: jar.header() });
    const lastCsrf = csrfOf(last.text);
    expect((await endSession('POST', { ...logoutParams(), csrf: lastCsrf }, same)).status).toBe(303);
    expect(await hasSession(jar)).toBe(false);
    expect((await endSession('POST', { ...logoutParams(), csrf: lastCsrf }, same)).status, 'a used token').toBe(403);
  });

  itIfMet(verdict, 'logs out at once with a valid id_token_hint', async () => {
    const { jar, location, verifier } = await signedIn();
    const code = new URL(location).searchParams.get('code') ?? '';
    const tokenResponse = await fetch(`${node.baseUrl}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
    });
    const idToken = ((await tokenResponse.json()) as { id_token: string }).id_token;
    const direct = await endSession('GET', { id_token_hint: idToken, post_logout_redirect_uri: LOGGED_OUT_URI, state: 's' }, { cookie: jar.header() });
    expect({ status: direct.status, state: new URL(direct.location ?? '').searchParams.get('state') }).toEqual({ status: 303, state: 's' });
    expect(await hasSession(jar)).toBe(false);
  });
});
