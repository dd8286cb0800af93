/**
 * A public client (token endpoint auth `none` + PKCE S256) driven by openid-client v6 with
 * Debian's Chromium logging in: the code flow with offline_access, refresh-token rotation with
 * `None()`, userinfo of the human user through the library, and end session built by
 * `buildEndSessionUrl` with the refreshed ID token (redirect with state; the grant's tokens are
 * revoked with the session).
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { startTestNode, type TestNode } from './harness.js';
import { createHuman, PASSWORD, startCallbackServer, type CallbackServer } from './oidc-code-flow.fixture.js';
import { createApp, createProject, type AppClient } from './oidc.fixture.js';
import { configFor, oauthError } from './rp-library.fixture.js';

const chromium = await meet(CHROMIUM);

let node: TestNode;
let callback: CallbackServer;
let browser: TestBrowser | undefined;
let app: AppClient;
let humanId: string;

beforeAll(async () => {
  node = await startTestNode();
  callback = await startCallbackServer();
  const projectId = await createProject(node, 'RP Public Client');
  app = await createApp(node, projectId, 'RP SPA', {
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [callback.redirectUri],
      postLogoutRedirectUris: [`${callback.redirectUri}/logged-out`],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
    },
  });
  humanId = await createHuman(node, 'rp-paula');
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

describeIfMet(chromium, 'public client with openid-client', () => {
  it('runs code + PKCE with offline_access, refreshes with none, reads userinfo and ends the session', async () => {
    const config = await configFor(node, app.clientId, oidc.None());
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback.redirectUri,
      scope: 'openid profile email offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const arrived = callback.next();
    await page.goto(url.toString());
    await page.fill('input[name=loginName]', 'rp-paula');
    await page.click('button[type=submit]');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    const tokens = await oidc.authorizationCodeGrant(config, new URL((await arrived).url), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()).toMatchObject({ iss: node.baseUrl, sub: humanId, azp: app.clientId });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ sub: humanId, aud: expect.arrayContaining([app.clientId]) });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    const info = await oidc.fetchUserInfo(config, refreshed.access_token, humanId);
    expect(info).toMatchObject({ sub: humanId, email: 'rp-paula@example.com', given_name: 'Flow' });

    const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${callback.redirectUri}/logged-out`, state: 'see-you' });
    expect(`${logout.origin}${logout.pathname}`).toBe(`${node.baseUrl}/oidc/v1/end_session`);
    const loggedOut = callback.next();
    await page.goto(logout.toString());
    const received = await loggedOut;
    expect(new URL(received.url).pathname).toBe('/cb/logged-out');
    expect(received.params.get('state')).toBe('see-you');
    await expect(oidc.fetchUserInfo(config, refreshed.access_token, humanId)).rejects.toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    // The rotated refresh token stays refused (checked last: a replay revokes the whole family).
    expect(await oauthError(oidc.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_grant');
    await context.close();
  });
});
