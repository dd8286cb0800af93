/**
 * Browser sessions across authorization requests, in Debian's Chromium: select account with two
 * sessions, prompt=none with a session (and login_hint), prompt=login, and end_session (id_token_hint, registered
 * post_logout_redirect_uri, state appended; the session and its tokens are gone afterwards).
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, PASSWORD, startCallbackServer, type CallbackServer, type FlowTenant } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

let node: TestNode;
let callback: CallbackServer;
let tenant: FlowTenant;
let browser: TestBrowser | undefined;
let config: oidc.Configuration;
let aliceId: string;
let bobId: string;

beforeAll(async () => {
  node = await startTestNode();
  callback = await startCallbackServer();
  tenant = await createFlowTenant(node, callback.redirectUri);
  aliceId = await createHuman(node, 'sess-alice');
  bobId = await createHuman(node, 'sess-bob');
  config = await oidc.discovery(new URL(node.baseUrl), tenant.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

async function start(extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { url, verifier, state };
}

/** Opens the authorization URL; fills the login pages when they appear; returns the callback. */
async function authorize(context: BrowserContext, extra: Record<string, string>, loginName?: string) {
  const started = await start(extra);
  const arrived = callback.next();
  const page = await context.newPage();
  await page.goto(started.url.toString());
  if (loginName !== undefined) {
    await page.fill('input[name=loginName]', loginName);
    await page.click('button[type=submit]');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
  }
  const received = await arrived;
  await page.close();
  return { started, received };
}

async function exchange(flow: Awaited<ReturnType<typeof authorize>>) {
  return oidc.authorizationCodeGrant(config, new URL(flow.received.url), { pkceCodeVerifier: flow.started.verifier, expectedState: flow.started.state });
}

async function isActive(token: string): Promise<boolean> {
  const basic = Buffer.from(`${tenant.introspector.clientId}:${tenant.introspector.clientSecret}`).toString('base64');
  const response = await fetch(`${node.baseUrl}/oauth/v2/introspect`, { method: 'POST', headers: { authorization: `Basic ${basic}` }, body: new URLSearchParams({ token }) });
  return ((await response.json()) as { active: boolean }).active;
}

describeIfMet(chromium, 'browser sessions', () => {
  it('prompt=none reuses the session; prompt=login adds a second; two sessions → select account', async () => {
    const context = await browser!.newContext();
    await authorize(context, {}, 'sess-alice');
    const silent = await authorize(context, { prompt: 'none' });
    expect((await exchange(silent)).claims()?.sub).toBe(aliceId);

    const forced = await authorize(context, { prompt: 'login' }, 'sess-bob');
    expect((await exchange(forced)).claims()?.sub).toBe(bobId);

    const started = await start();
    const page = await context.newPage();
    await page.goto(started.url.toString());
    const choices = await page.locator('form button[name=submit][value=select]').allTextContents();
    expect(choices.sort()).toEqual([expect.stringMatching(/^sess-alice@/), expect.stringMatching(/^sess-bob@/)]);
    const arrived = callback.next();
    await page.click('button[value=select]:has-text("sess-alice@")');
    const tokens = await exchange({ started, received: await arrived });
    expect(tokens.claims()?.sub).toBe(aliceId);

    const ambiguous = await start({ prompt: 'none' });
    const response = await context.request.get(ambiguous.url.toString(), { maxRedirects: 0 });
    expect(new URL(response.headers()['location']!).searchParams.get('error')).toBe('account_selection_required');

    const hinted = await start({ prompt: 'none', login_hint: choices.find((c) => c.startsWith('sess-bob@'))! });
    const hintArrived = callback.next();
    await (await context.newPage()).goto(hinted.url.toString());
    expect((await exchange({ started: hinted, received: await hintArrived })).claims()?.sub).toBe(bobId);
    await context.close();
  });

  it('end_session with id_token_hint redirects to the registered URI with state and ends the session', async () => {
    const context = await browser!.newContext();
    const tokens = await exchange(await authorize(context, {}, 'sess-alice'));
    expect((await api(node)('GET', `/resources/v3alpha/sessions/${tokens.claims()!.sid as string}`)).status).toBe(200); // a PlatformSession
    expect(await isActive(tokens.access_token)).toBe(true);
    const mismatch = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, client_id: 'someone-else', post_logout_redirect_uri: `${callback.redirectUri}/logged-out` });
    const refused = await context.request.get(mismatch.toString(), { maxRedirects: 0 });
    expect(refused.status()).toBe(400); // azp and client_id differ: error page, session kept
    const logoutUrl = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${callback.redirectUri}/logged-out`, state: 'bye' });
    const arrived = callback.next();
    await (await context.newPage()).goto(logoutUrl.toString());
    const received = await arrived;
    expect(new URL(received.url).pathname).toBe('/cb/logged-out');
    expect((await api(node)('GET', `/resources/v3alpha/sessions/${tokens.claims()!.sid as string}`)).status).toBe(404);
    expect(await isActive(tokens.access_token)).toBe(false); // revoked by the logout
    expect(received.params.get('state')).toBe('bye');

    const silent = await start({ prompt: 'none' });
    const response = await context.request.get(silent.url.toString(), { maxRedirects: 0 });
    expect(new URL(response.headers()['location']!).searchParams.get('error')).toBe('login_required');

    const unregistered = await context.request.get(`${node.baseUrl}/oidc/v1/end_session?client_id=${tenant.clientId}&post_logout_redirect_uri=${encodeURIComponent('http://127.0.0.1:1/x')}`, { maxRedirects: 0 });
    expect(unregistered.status()).toBe(400);
    expect(unregistered.headers()['location']).toBeUndefined();
    await context.close();
  });
});
