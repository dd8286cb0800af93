/**
 * The authorization code flow end to end: Debian's Chromium (playwright-core) logs in through
 * the login UI of a started node, openid-client v6 exchanges the code (PKCE S256) and the ID
 * token is verified against the published JWKS. Negative cases: PKCE verifier mismatch, code
 * replay (invalid_grant, first access token revoked), unregistered redirect_uri (error page, no
 * redirect), prompt=none without a session (login_required), German UI, lockout.
 */
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { startAuthorization, type StartedAuthorization } from './rp-library.fixture.js';
import { openLogin, postLogin } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
let config: oidc.Configuration;

beforeAll(async () => {
  node = await startTestNode();
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  await createHuman(node, 'flow-alice');
  config = await oidc.discovery(new URL(node.baseUrl), tenant.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

type Started = StartedAuthorization;

const authorizationUrl = (extra: Record<string, string> = {}): Promise<Started> => startAuthorization(config, callback.redirectUri, extra);

/** Logs in through the pages; resolves with what arrived at the redirect URI. */
async function logIn(page: Page, started: Started, loginName: string, password = PASSWORD) {
  const arrived = callback.next();
  await page.goto(started.url.toString());
  await page.fill('input[name=loginName]', loginName);
  await page.click('button[type=submit]');
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  return arrived;
}

async function tokenRequest(body: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.baseUrl}/oauth/v2/token`, { method: 'POST', body: new URLSearchParams(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function isActive(token: string): Promise<boolean> {
  const basic = Buffer.from(`${tenant.introspector.clientId}:${tenant.introspector.clientSecret}`).toString('base64');
  const response = await fetch(`${node.baseUrl}/oauth/v2/introspect`, { method: 'POST', headers: { authorization: `Basic ${basic}` }, body: new URLSearchParams({ token }) });
  return ((await response.json()) as { active: boolean }).active;
}

describeIfMet(chromium, 'code flow in a real browser', () => {
  it('logs in, exchanges the code with openid-client and verifies the ID token; a replayed code revokes the tokens', async () => {
    const context = await browser!.newContext();
    const started = await authorizationUrl();
    const arrived = await logIn(await context.newPage(), started, 'flow-alice');
    expect(arrived.params.get('state')).toBe(started.state);
    expect(arrived.params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookies = await context.cookies(node.baseUrl);
    expect(cookies.find((c) => c.name === 'tessera_sessions')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    // The browser binding of the auth request (login CSRF, #12 item 2): scoped to the login UI.
    const binding = (await context.cookies()).find((c) => c.name.startsWith('tessera_login_'));
    expect(binding).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/ui/login', secure: false });

    const tokens = await oidc.authorizationCodeGrant(config, new URL(arrived.url), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: node.baseUrl, aud: expect.arrayContaining([tenant.clientId, tenant.projectId]), azp: tenant.clientId, amr: ['pwd'], acr: 'urn:platform:loa:1fa', nonce: started.nonce });
    expect(claims?.sid).toEqual(expect.any(String));
    expect(claims?.auth_time).toEqual(expect.any(Number));
    expect(claims).not.toHaveProperty('email'); // an access token was issued with it (seed: claims via userinfo)
    const jwks = createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
    const verified = await jwtVerify(tokens.id_token!, jwks, { issuer: node.baseUrl, audience: tenant.clientId });
    expect(verified.payload.at_hash).toEqual(expect.any(String));
    expect(await isActive(tokens.access_token)).toBe(true);

    const replay = await tokenRequest({ grant_type: 'authorization_code', client_id: tenant.clientId, code: arrived.params.get('code')!, redirect_uri: callback.redirectUri, code_verifier: started.verifier });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await isActive(tokens.access_token)).toBe(false);

    // The browser session is reused: the next request gets a code without any page.
    const again = await authorizationUrl();
    const second = callback.next();
    await (await context.newPage()).goto(again.url.toString());
    const reused = (await second).params;
    expect(Object.fromEntries(reused), 'the reused session answers with a code, not an error').toMatchObject({ code: expect.any(String) });
    await context.close();
  });

  it('refuses a wrong PKCE verifier and a different redirect_uri with invalid_grant', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const first = await authorizationUrl();
    const arrived = await logIn(page, first, 'flow-alice');
    const wrong = await tokenRequest({ grant_type: 'authorization_code', client_id: tenant.clientId, code: arrived.params.get('code')!, redirect_uri: callback.redirectUri, code_verifier: oidc.randomPKCECodeVerifier() });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const second = await authorizationUrl();
    const secondArrived = callback.next();
    await page.goto(second.url.toString()); // session reused
    const code = (await secondArrived).params.get('code')!;
    const mismatch = await tokenRequest({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: `${callback.redirectUri}/other`, code_verifier: second.verifier });
    expect(mismatch).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await context.close();
  });

  it('shows the German page for ui_locales=de', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const started = await authorizationUrl({ ui_locales: 'de' });
    const response = await page.goto(started.url.toString());
    expect(response?.status()).toBe(200);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.textContent('label[for=loginName]')).toBe('Loginname');
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await context.close();
  });

  it('limits the page languages to the instance’s restricted languages', async () => {
    const admin = api(node);
    expect((await admin('PATCH', '/settings/v3alpha/features', { multitenancy_settings: true })).status).toBe(200);
    const restricted = await admin('PATCH', '/settings/v3alpha/languages', { defaultLanguage: { key: 'de' }, restrictedLanguages: { languages: [{ key: 'de' }] } });
    expect(restricted.status, JSON.stringify(restricted.body)).toBe(200);
    try {
      const context = await browser!.newContext({ locale: 'en-US' });
      const page = await context.newPage();
      await page.goto((await authorizationUrl({ ui_locales: 'en' })).url.toString());
      expect(await page.getAttribute('html', 'lang')).toBe('de'); // en is not offered any more
      await context.close();
    } finally {
      await admin('PATCH', '/settings/v3alpha/languages', { defaultLanguage: { key: '' }, restrictedLanguages: { languages: [] } });
    }
  });

  it('posts the response with form_post', async () => {
    const context = await browser!.newContext();
    const started = await authorizationUrl({ response_mode: 'form_post' });
    const arrived = await logIn(await context.newPage(), started, 'flow-alice');
    expect(arrived.method).toBe('POST');
    expect(arrived.params.get('state')).toBe(started.state);
    expect(arrived.params.get('code')).toEqual(expect.any(String));
    await context.close();
  });

  it('locks the user after the instance maximum of failed passwords', async () => {
    expect((await api(node)('PATCH', '/settings/v3alpha/users', { maxPasswordAttempts: 2 })).status).toBe(200);
    const userId = await createHuman(node, 'flow-locky');
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto((await authorizationUrl()).url.toString());
    await page.fill('input[name=loginName]', 'flow-locky');
    await page.click('button[type=submit]');
    for (let attempt = 0; attempt < 2; attempt++) {
      await page.fill('input[name=password]', 'Wrong1Password');
      await page.click('button[type=submit]');
    }
    expect(await page.textContent('[role=alert]')).toContain('locked');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('locked');
    const user = await api(node)('GET', `/resources/v3alpha/users/${userId}`);
    expect(JSON.stringify(user.body)).toContain('LOCKED');
    await context.close();
  });
});

describe('authorize endpoint without a browser', () => {
  it('shows an error page for an unregistered redirect_uri and never redirects', async () => {
    const started = await authorizationUrl({ redirect_uri: 'http://127.0.0.1:1/evil' });
    const response = await fetch(started.url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).not.toContain('127.0.0.1:1');
  });

  it('answers prompt=none without a session with login_required at the redirect_uri', async () => {
    const started = await authorizationUrl({ prompt: 'none' });
    const response = await fetch(started.url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callback.redirectUri);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'login_required', state: started.state });
  });

  it.each([
    ['scope without openid', { scope: 'profile' }, 'invalid_scope'],
    ['response_type not allowed', { response_type: 'id_token' }, 'unauthorized_client'],
    ['unknown response_type', { response_type: 'token' }, 'unsupported_response_type'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
  ])('redirects %s as %s with state', async (_, extra, error) => {
    const started = await authorizationUrl(extra);
    const response = await fetch(started.url, { redirect: 'manual' });
    const location = new URL(response.headers.get('location')!);
    // id_token responses default to the fragment response mode (seed: response modes).
    const params = location.hash === '' ? location.searchParams : new URLSearchParams(location.hash.slice(1));
    expect(Object.fromEntries(params)).toMatchObject({ error, state: started.state });
  });

  it('refuses a login form without the CSRF token of its auth request', async () => {
    const steps = await openLogin(node, (await authorizationUrl()).url);
    const form = { authRequest: steps.started.authRequest, action: 'loginname', loginName: 'flow-alice' };
    const posted = await postLogin(node, { ...form, csrf: 'forged' }, steps.headers);
    expect(posted.status).toBe(403);
    const accepted = await postLogin(node, { ...form, csrf: steps.csrf }, steps.headers);
    expect(accepted.status).toBe(303);
  });

  it('shows an error page for an unknown auth request', async () => {
    const response = await fetch(`${node.baseUrl}/ui/login/login?authRequest=unknown`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
