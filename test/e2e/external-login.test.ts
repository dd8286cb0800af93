/**
 * External login end to end in Chromium: node A's login UI signs users in through a
 * FORGE_SELF_HOSTED IDP that is a second, real Tessera node (B) — discovery, code flow with
 * PKCE / state / nonce, client_secret_basic, ID token and userinfo all against B. Covered:
 * auto-creation (+ auto-update on the next login), auto-linking by verified email and by
 * username (prompt),
 * manual linking with the local password, manual creation, the link used on the next login, a
 * deactivated IDP (not shown, start refused, callback refused) and a wrong / reused state; a
 * linked account with a second factor is asked for it after the external login.
 */
import * as oidc from 'openid-client';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import {
  addHuman,
  createProviderApp,
  createSelfHostedIdp,
  EXTERNAL_CALLBACK_PATH,
  IDP_PASSWORD,
  linksOf,
  providerApi,
  type ProviderApp,
} from './external-login.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, startCallbackServer, type Callback, type CallbackServer } from './oidc-code-flow.fixture.js';
import { configFor } from './rp-library.fixture.js';

const chromium = await meet(CHROMIUM);

let nodeA: TestNode;
let nodeB: TestNode;
let callback: CallbackServer;
let browser: TestBrowser | undefined;
let app: ProviderApp;
let config: oidc.Configuration;
type IdpName = 'autoCreate' | 'emailLink' | 'usernameLink' | 'manualLink' | 'manualCreate' | 'inactive' | 'deactivatedLater';
let idps: Record<IdpName, string>;

// Client callbacks by their state: a flow that never reaches the client must not take another's.
const arrivals = new Map<string, Callback>();
const waiting = new Map<string, (cb: Callback) => void>();
function collectCallbacks(): void {
  void callback.next().then((cb) => {
    const state = cb.params.get('state') ?? '';
    const waiter = waiting.get(state);
    if (waiter === undefined) arrivals.set(state, cb);
    else waiter(cb);
    collectCallbacks();
  });
}
function arrivalOf(state: string): Promise<Callback> {
  const arrived = arrivals.get(state);
  return arrived !== undefined ? Promise.resolve(arrived) : new Promise((resolve) => waiting.set(state, resolve));
}

beforeAll(async () => {
  [nodeA, nodeB] = await Promise.all([
    startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } }),
    startTestNode({ env: { TESSERA_EXTERNAL_DOMAIN: '127.0.0.1' } }),
  ]);
  callback = await startCallbackServer();
  collectCallbacks();
  const tenant = await createFlowTenant(nodeA, callback.redirectUri);
  config = await configFor(nodeA, tenant.clientId, oidc.None());
  app = await createProviderApp(nodeB, nodeA);
  idps = {
    autoCreate: await createSelfHostedIdp(nodeA, nodeB, app, 'B auto create', { isAutoCreation: true, isAutoUpdate: true }),
    emailLink: await createSelfHostedIdp(nodeA, nodeB, app, 'B email link', { autoLinking: 'AUTO_LINKING_OPTION_EMAIL' }),
    usernameLink: await createSelfHostedIdp(nodeA, nodeB, app, 'B username link', { autoLinking: 'AUTO_LINKING_OPTION_USERNAME' }),
    manualLink: await createSelfHostedIdp(nodeA, nodeB, app, 'B manual link', { isManualLinkingAllowed: true }),
    manualCreate: await createSelfHostedIdp(nodeA, nodeB, app, 'B manual create', { isManualCreationAllowed: true }),
    inactive: await createSelfHostedIdp(nodeA, nodeB, app, 'B inactive', { isAutoCreation: true }, 'STATE_POLICY_DEACTIVATE'),
    deactivatedLater: await createSelfHostedIdp(nodeA, nodeB, app, 'B deactivated later', { isAutoCreation: true }),
  };
  if (chromium.outcome === 'run') browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await Promise.all([nodeA?.stop(), nodeB?.stop()]);
  nodeA?.cleanup();
  nodeB?.cleanup();
});

interface Flow {
  readonly page: Page;
  /** The code's subject at node A, once the client got its callback. */
  subject(): Promise<string>;
}

/** Starts a code + PKCE request of A's client (prompt=login: A always shows its login page). */
async function startFlow(context: BrowserContext): Promise<Flow> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'login',
  });
  const page = await context.newPage();
  await page.goto(url.toString());
  return {
    page,
    async subject() {
      const tokens = await oidc.authorizationCodeGrant(config, new URL((await arrivalOf(state)).url), { pkceCodeVerifier: verifier, expectedState: state });
      return tokens.claims()!.sub;
    },
  };
}

const atB = (url: URL): boolean => url.host === `127.0.0.1:${nodeB.httpPort}`;
const atCallback = (url: URL): boolean => url.host === `localhost:${nodeA.httpPort}` && url.pathname === EXTERNAL_CALLBACK_PATH;

/** Clicks "Sign in with <idp>" on A's login page and logs in at B (skipped when B's session is reused). */
async function signInAtB(page: Page, idpId: string, bUsername?: string): Promise<void> {
  await page.click(`a[data-idp="${idpId}"]`);
  if (bUsername === undefined) return;
  await page.waitForURL(atB);
  await page.fill('input[name=loginName]', bUsername);
  await page.click('button[type=submit]');
  await page.fill('input[name=password]', IDP_PASSWORD);
  await page.click('button[type=submit]');
}

async function userAtA(userId: string): Promise<Record<string, any>> {
  const got = await api(nodeA)('GET', `/resources/v3alpha/users/${userId}`);
  expect(got.status).toBe(200);
  return got.body.user;
}

describeIfMet(chromium, 'external login through a second Tessera node', () => {
  it('shows the active IDPs on the login page, not the deactivated one', async () => {
    const context = await browser!.newContext();
    const { page } = await startFlow(context);
    await page.waitForSelector(`a[data-idp="${idps.autoCreate}"]`);
    expect(await page.textContent(`a[data-idp="${idps.autoCreate}"]`)).toBe('Sign in with B auto create');
    expect(await page.locator(`a[data-idp="${idps.inactive}"]`).count()).toBe(0);
    // Forging the start link of the deactivated IDP is refused too.
    const href = (await page.getAttribute(`a[data-idp="${idps.autoCreate}"]`, 'href'))!.replace(idps.autoCreate, idps.inactive);
    const refused = await page.goto(new URL(href, nodeA.baseUrl).toString());
    expect(refused!.status()).toBe(403);
    expect(await page.textContent('[role=alert]')).toContain('not available');
    await context.close();
  });

  it('auto-creates the user from B\'s claims, reuses the link next time and auto-updates the name', async () => {
    const bUserId = await addHuman(providerApi(nodeB), { username: 'bert', givenName: 'Bert', familyName: 'Brown', email: 'bert@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const first = await startFlow(context);
    await signInAtB(first.page, idps.autoCreate, 'bert');
    const created = await first.subject();
    const user = await userAtA(created);
    expect(user.human).toMatchObject({ profile: { givenName: 'Bert', familyName: 'Brown' }, email: { address: 'bert@b.example', isVerified: true } });
    expect(user.username).toContain('bert');
    const expectedLink = { idpId: idps.autoCreate, externalUserId: bUserId, externalUsername: expect.stringContaining('bert') };
    expect(await linksOf(nodeA, created)).toEqual({ events: [expectedLink], row: [expectedLink] });

    const renamed = await providerApi(nodeB)('PATCH', `/resources/v3alpha/users/${bUserId}`, { human: { profile: { givenName: 'Berta' } } });
    expect(renamed.status).toBe(200);
    // B reuses its session (no login at B); A finds the link and updates the profile.
    const second = await startFlow(context);
    await signInAtB(second.page, idps.autoCreate);
    expect(await second.subject()).toBe(created);
    expect((await userAtA(created)).human.profile.givenName).toBe('Berta');
    await context.close();
  });

  it('auto-links by verified email after the prompt, then logs in straight through the link', async () => {
    const localId = await addHuman(api(nodeA), { username: 'carla-local', givenName: 'Carla', familyName: 'Local', email: 'carla@shared.example', emailVerified: true });
    await addHuman(providerApi(nodeB), { username: 'carla', givenName: 'Carla', familyName: 'Remote', email: 'carla@shared.example', emailVerified: true });
    const context = await browser!.newContext();
    const first = await startFlow(context);
    await signInAtB(first.page, idps.emailLink, 'carla');
    await first.page.waitForURL(atCallback);
    expect(await first.page.textContent('.proposed')).toBe('carla-local');
    await first.page.click('button[value="external.link.proposed"]');
    expect(await first.subject()).toBe(localId);

    const second = await startFlow(context);
    await signInAtB(second.page, idps.emailLink);
    expect(await second.subject()).toBe(localId);
    await context.close();
  });

  it("auto-links by username (B's preferred_username is a local user's name), whatever the emails say", async () => {
    const ginaAtB = await addHuman(providerApi(nodeB), { username: 'gina-u', givenName: 'Gina', familyName: 'Remote', email: 'gina@b.example', emailVerified: true });
    // B's preferred_username is its login name (`gina@<B's org domain>`); a local user of that name is the match.
    const externalName = (await providerApi(nodeB)('GET', `/resources/v3alpha/users/${ginaAtB}`)).body.user.preferredLoginName as string;
    const localId = await addHuman(api(nodeA), { username: externalName, givenName: 'Gina', familyName: 'Local', email: 'gina@a.example', emailVerified: false });
    const context = await browser!.newContext();
    const first = await startFlow(context);
    await signInAtB(first.page, idps.usernameLink, 'gina-u');
    await first.page.waitForURL(atCallback);
    expect(await first.page.textContent('.proposed')).toBe(externalName);
    await first.page.click('button[value="external.link.proposed"]');
    expect(await first.subject()).toBe(localId);
    expect((await linksOf(nodeA, localId)).events).toEqual([{ idpId: idps.usernameLink, externalUserId: ginaAtB, externalUsername: externalName }]);
    await context.close();
  });

  it('proposes nobody when several local users have the email', async () => {
    for (const n of [1, 2]) await addHuman(api(nodeA), { username: `twin-${n}`, givenName: 'Twin', familyName: `${n}`, email: 'twins@shared.example', emailVerified: true });
    await addHuman(providerApi(nodeB), { username: 'twin', givenName: 'Twin', familyName: 'Remote', email: 'twins@shared.example', emailVerified: true });
    const context = await browser!.newContext();
    const { page } = await startFlow(context);
    await signInAtB(page, idps.emailLink, 'twin');
    await page.waitForURL(atCallback);
    // No proposal, no manual linking or creation allowed on this IDP: the login is refused.
    expect(await page.locator('.proposed').count()).toBe(0);
    expect(await page.textContent('[role=alert]')).toContain('No account is linked');
    await context.close();
  });

  it('links an existing local account after its password is proven (manual linking)', async () => {
    const localId = await addHuman(api(nodeA), { username: 'dora-local', givenName: 'Dora', familyName: 'Local', email: 'dora@a.example', emailVerified: false });
    const doraAtB = await addHuman(providerApi(nodeB), { username: 'dora', givenName: 'Dora', familyName: 'Remote', email: 'dora@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const first = await startFlow(context);
    await signInAtB(first.page, idps.manualLink, 'dora');
    await first.page.waitForURL(atCallback);
    await first.page.fill('input[name=loginName]', 'dora-local');
    await first.page.fill('input[name=password]', 'wrong-password');
    await first.page.click('button[value="external.link"]');
    // Unknown users are hidden by default (#12 item 4): a wrong password and an unknown name read alike.
    const failure = 'The login name or password is wrong, or the account is locked.';
    expect(await first.page.textContent('[role=alert]')).toBe(failure);
    await first.page.fill('input[name=loginName]', 'dora-nobody');
    await first.page.fill('input[name=password]', IDP_PASSWORD);
    await first.page.click('button[value="external.link"]');
    expect(await first.page.textContent('[role=alert]')).toBe(failure);
    await first.page.fill('input[name=loginName]', 'dora-local');
    await first.page.fill('input[name=password]', IDP_PASSWORD);
    await first.page.click('button[value="external.link"]');
    expect(await first.subject()).toBe(localId);
    expect((await linksOf(nodeA, localId)).events).toEqual([{ idpId: idps.manualLink, externalUserId: doraAtB, externalUsername: expect.stringContaining('dora') }]);

    const second = await startFlow(context);
    await signInAtB(second.page, idps.manualLink);
    expect(await second.subject()).toBe(localId);
    await context.close();
  });

  it('does not link an account with a verified TOTP on its password alone (control: the right password was accepted)', async () => {
    const local = api(nodeA);
    const localId = await addHuman(local, { username: 'tina-local', givenName: 'Tina', familyName: 'Local', email: 'tina@a.example', emailVerified: false });
    const enrolled = await local('POST', `/resources/v3alpha/users/${localId}/totp`);
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const code = new TOTP({ secret: Secret.fromBase32(enrolled.body.secret) }).generate();
    expect((await local('POST', `/resources/v3alpha/users/${localId}/totp/_verify`, { code })).status).toBe(200);
    await addHuman(providerApi(nodeB), { username: 'tina', givenName: 'Tina', familyName: 'Remote', email: 'tina@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const flow = await startFlow(context);
    await signInAtB(flow.page, idps.manualLink, 'tina');
    await flow.page.waitForURL(atCallback);
    await flow.page.fill('input[name=loginName]', 'tina-local');
    await flow.page.fill('input[name=password]', 'wrong-password');
    await flow.page.click('button[value="external.link"]');
    expect(await flow.page.textContent('[role=alert]')).toBe('The login name or password is wrong, or the account is locked.');
    await flow.page.fill('input[name=loginName]', 'tina-local');
    await flow.page.fill('input[name=password]', IDP_PASSWORD);
    await flow.page.click('button[value="external.link"]');
    // The right password gets its own answer (the wrong one above did not), and nothing is linked.
    expect(await flow.page.textContent('[role=alert]')).toContain('protected by a second factor');
    expect((await linksOf(nodeA, localId)).events).toEqual([]);
    await context.close();
  });

  it('asks a linked account with a verified TOTP for its code after the external login (control: before the enrolment it went straight through)', async () => {
    const local = api(nodeA);
    const localId = await addHuman(local, { username: 'otto-local', givenName: 'Otto', familyName: 'Local', email: 'otto@shared.example', emailVerified: true });
    await addHuman(providerApi(nodeB), { username: 'otto', givenName: 'Otto', familyName: 'Remote', email: 'otto@shared.example', emailVerified: true });
    const context = await browser!.newContext();
    // Control: linked without a second factor, the external login alone signs in.
    const first = await startFlow(context);
    await signInAtB(first.page, idps.emailLink, 'otto');
    await first.page.waitForURL(atCallback);
    await first.page.click('button[value="external.link.proposed"]');
    expect(await first.subject()).toBe(localId);

    const enrolled = await local('POST', `/resources/v3alpha/users/${localId}/totp`);
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.body.secret) });
    expect((await local('POST', `/resources/v3alpha/users/${localId}/totp/_verify`, { code: totp.generate() })).status).toBe(200);
    // Now the same external login stops at A's code page: no client callback before the code.
    const second = await startFlow(context);
    await signInAtB(second.page, idps.emailLink);
    await second.page.waitForSelector('input[name=code]');
    expect(await second.page.locator('button[value=otp]').count()).toBe(1);
    const accepted = new Set([-1, 0, 1].map((s) => totp.generate({ timestamp: Date.now() + s * 30_000 })));
    let wrong = 0;
    while (accepted.has(String(wrong).padStart(6, '0'))) wrong += 1;
    await second.page.fill('input[name=code]', String(wrong).padStart(6, '0'));
    await second.page.click('button[value=otp]');
    await second.page.waitForSelector('p.error');
    expect(await second.page.textContent('p.error')).toContain('The code is wrong');
    // The verify step accepted the current code; the next step's code is not a replay.
    await second.page.fill('input[name=code]', totp.generate({ timestamp: Date.now() + 30_000 }));
    await second.page.click('button[value=otp]');
    expect(await second.subject()).toBe(localId);
    await context.close();
  });

  it('refuses an external login without a second factor where the login policy forces one for every login (control: before, and with forceMfaLocalOnly, it signs in)', async () => {
    await addHuman(providerApi(nodeB), { username: 'fiona', givenName: 'Fiona', familyName: 'Far', email: 'fiona@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const first = await startFlow(context);
    await signInAtB(first.page, idps.autoCreate, 'fiona');
    const created = await first.subject();
    const policy = (settings: Record<string, boolean>) => api(nodeA)('PATCH', '/settings/v3alpha/login', settings);
    try {
      expect((await policy({ forceMfa: true })).status).toBe(200);
      const forced = await startFlow(context);
      await signInAtB(forced.page, idps.autoCreate);
      await forced.page.waitForSelector('[role=alert]');
      expect(await forced.page.textContent('[role=alert]')).toContain('Sign in with your password once to set one up.');
      expect(await forced.page.locator('input[name=code]').count(), 'no session, no code page').toBe(0);

      expect((await policy({ forceMfaLocalOnly: true })).status).toBe(200);
      const localOnly = await startFlow(context);
      await signInAtB(localOnly.page, idps.autoCreate);
      expect(await localOnly.subject()).toBe(created);
    } finally {
      expect((await policy({ forceMfa: false, forceMfaLocalOnly: false })).status).toBe(200);
      await context.close();
    }
  });

  it('creates an account from the prefilled form (manual creation)', async () => {
    await addHuman(providerApi(nodeB), { username: 'emil', givenName: 'Emil', familyName: 'Remote', email: 'emil@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const { page, subject } = await startFlow(context);
    await signInAtB(page, idps.manualCreate, 'emil');
    await page.waitForURL(atCallback);
    expect(await page.inputValue('input[name=givenName]')).toBe('Emil');
    await page.fill('input[name=username]', 'emil-created');
    await page.click('button[value="external.create"]');
    const user = await userAtA(await subject());
    expect(user).toMatchObject({ username: 'emil-created', human: { profile: { givenName: 'Emil', familyName: 'Remote' }, email: { address: 'emil@b.example', isVerified: true } } });
    await context.close();
  });

  it('refuses the callback of an IDP deactivated while the user was at the provider', async () => {
    await addHuman(providerApi(nodeB), { username: 'finn', givenName: 'Finn', familyName: 'Remote', email: 'finn@b.example', emailVerified: true });
    const context = await browser!.newContext();
    const { page } = await startFlow(context);
    await page.click(`a[data-idp="${idps.deactivatedLater}"]`);
    await page.waitForURL(atB);
    const patched = await api(nodeA)('PATCH', `/resources/v3alpha/idps/forge_self_hosted/${idps.deactivatedLater}`, { idp: { statePolicy: 'STATE_POLICY_DEACTIVATE' } });
    expect(patched.status).toBe(200);
    await page.fill('input[name=loginName]', 'finn');
    await page.click('button[type=submit]');
    await page.fill('input[name=password]', IDP_PASSWORD);
    const answered = page.waitForResponse((r) => atCallback(new URL(r.url())));
    await page.click('button[type=submit]');
    expect((await answered).status()).toBe(403);
    expect(await page.textContent('[role=alert]')).toContain('not available');
    await context.close();
  });

  it('shows an error page for a wrong or reused state', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const wrong = await page.goto(`${nodeA.baseUrl}${EXTERNAL_CALLBACK_PATH}?state=not-a-state&code=abc`);
    expect(wrong!.status()).toBe(400);
    expect(await page.textContent('[role=alert]')).toContain('external login is unknown');

    // A real callback URL works once; replaying it (single-use state) is refused.
    await addHuman(providerApi(nodeB), { username: 'gina', givenName: 'Gina', familyName: 'Remote', email: 'gina@b.example', emailVerified: true });
    const flow = await startFlow(context);
    let callbackUrl = '';
    flow.page.on('request', (r) => {
      if (atCallback(new URL(r.url()))) callbackUrl = r.url();
    });
    await signInAtB(flow.page, idps.autoCreate, 'gina');
    await flow.subject();
    expect(callbackUrl).toContain('state=');
    const replayed = await page.goto(callbackUrl);
    expect(replayed!.status()).toBe(400);
    expect(await page.textContent('[role=alert]')).toContain('external login is unknown');
    await context.close();
  });

  it('refuses a callback from another browser than the one that started the login', async () => {
    const starter = await browser!.newContext();
    const { page } = await startFlow(starter);
    let state = '';
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (atB(url) && url.searchParams.has('state')) state = url.searchParams.get('state')!;
    });
    await page.click(`a[data-idp="${idps.autoCreate}"]`);
    await page.waitForURL(atB);
    expect(state).not.toBe('');
    const other = await browser!.newContext();
    const otherPage = await other.newPage();
    const foreign = await otherPage.goto(`${nodeA.baseUrl}${EXTERNAL_CALLBACK_PATH}?state=${encodeURIComponent(state)}&code=stolen`);
    expect(foreign!.status()).toBe(400);
    expect(await otherPage.textContent('[role=alert]')).toContain('external login is unknown');
    await Promise.all([starter.close(), other.close()]);
  });
});
