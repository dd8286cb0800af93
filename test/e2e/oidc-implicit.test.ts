/**
 * Implicit responses in Debian's Chromium: `id_token` (userinfo claims in the ID token) and
 * `id_token token` (access token, at_hash, no userinfo claims) in the fragment; nonce required.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, describeIfMet, meet } from '../requirements.js';
import { launchBrowser, type TestBrowser } from './browser.fixture.js';
import { startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, createImplicitApp, PASSWORD, startCallbackServer, type CallbackServer } from './oidc-code-flow.fixture.js';

const chromium = await meet(CHROMIUM);

let node: TestNode;
let callback: CallbackServer;
let clientId: string;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  node = await startTestNode();
  callback = await startCallbackServer();
  const tenant = await createFlowTenant(node, callback.redirectUri);
  clientId = await createImplicitApp(node, tenant.projectId, callback.redirectUri);
  await createHuman(node, 'imp-alice');
  if (chromium.outcome === 'run') browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await callback.close();
  await node.stop();
  node.cleanup();
});

function authorizeUrl(params: Record<string, string>): string {
  const query = new URLSearchParams({ client_id: clientId, redirect_uri: callback.redirectUri, scope: 'openid email', state: 'st', ...params });
  return `${node.baseUrl}/oauth/v2/authorize?${query}`;
}

describeIfMet(chromium, 'implicit flow', () => {
  it('returns id_token, then id_token + access token in the fragment', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const jwks = createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
    await page.goto(authorizeUrl({ response_type: 'id_token', nonce: 'n-1' }));
    await page.fill('input[name=loginName]', 'imp-alice');
    await page.click('button[type=submit]');
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.redirectUri)), page.click('button[type=submit]')]);
    const first = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect(first.get('state')).toBe('st');
    const idOnly = await jwtVerify(first.get('id_token')!, jwks, { issuer: node.baseUrl, audience: clientId });
    expect(idOnly.payload).toMatchObject({ nonce: 'n-1', email: 'imp-alice@example.com', amr: ['pwd'] });
    expect(first.get('access_token')).toBeNull();

    await page.goto(authorizeUrl({ response_type: 'id_token token', nonce: 'n-2' })); // session reused
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const second = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect(second.get('token_type')).toBe('Bearer');
    expect(Number(second.get('expires_in'))).toBeGreaterThan(0);
    expect(second.get('scope')).toBe('openid email');
    const accessToken = second.get('access_token')!;
    const withToken = await jwtVerify(second.get('id_token')!, jwks, { issuer: node.baseUrl, audience: clientId });
    const digest = createHash('sha256').update(accessToken).digest();
    expect(withToken.payload).toMatchObject({ nonce: 'n-2', at_hash: digest.subarray(0, 16).toString('base64url') });
    expect(withToken.payload).not.toHaveProperty('email');
    await context.close();
  });
});

describe('implicit request checks', () => {
  it('requires a nonce (invalid_request in the fragment)', async () => {
    const response = await fetch(authorizeUrl({ response_type: 'id_token' }), { redirect: 'manual' });
    const params = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));
    expect(Object.fromEntries(params)).toMatchObject({ error: 'invalid_request', state: 'st' });
  });
});
