/**
 * Authorization responses of a started node as oauth4webapi reads them: `iss` (RFC 9207) in
 * every response mode, success and error alike, checked by `validateAuthResponse` because
 * discovery announces `authorization_response_iss_parameter_supported`. Logins go through the
 * login UI with fetch (login-fetch.fixture.ts). `prompt=consent` (satisfied at once, a refresh
 * token with offline_access; `none consent` refused). Request objects (`request`, `request_uri`)
 * refused at the redirect URI, or on an error page while the redirect URI is not valid.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';
import { FetchBrowser, type Arrival } from './login-fetch.fixture.js';
import { createHuman, PASSWORD } from './oidc-code-flow.fixture.js';
import { type AppClient, createApp, createProject } from './oidc.fixture.js';

const REDIRECT = 'http://127.0.0.1:9/cb';
const USER = 'resp-ann';

let node: TestNode;
let as: oauth.AuthorizationServer;
let codeApp: AppClient;
let implicitApp: AppClient;

beforeAll(async () => {
  node = await startTestNode();
  const projectId = await createProject(node, 'Responses');
  codeApp = await createApp(node, projectId, 'Code', {
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
    },
  });
  implicitApp = await createApp(node, projectId, 'Implicit', {
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
    },
  });
  await createHuman(node, USER);
  const issuer = new URL(node.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true, algorithm: 'oidc' }));
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

interface Request {
  readonly url: URL;
  readonly state: string;
  readonly verifier: string;
}

async function authorizationRequest(clientId: string, extra: Record<string, string> = {}): Promise<Request> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string> = {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state,
    nonce: oauth.generateRandomNonce(),
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { url, state, verifier };
}

/** Opens the request with a fresh browser that logs in as USER when asked. */
function arrive(request: Request): Promise<Arrival> {
  return new FetchBrowser(node).authorize(request.url, { loginName: USER, password: PASSWORD });
}

/** The error oauth4webapi reports for an error response (after its iss and state checks), else undefined. */
function validatedError(client: oauth.Client, arrival: Arrival, state: string): string | undefined {
  try {
    oauth.validateAuthResponse(as, client, arrival.params, state);
    return undefined;
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) return error.error;
    throw error;
  }
}

describe('iss in authorization responses (RFC 9207)', () => {
  it('is announced by discovery', () => {
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.issuer).toBe(node.baseUrl);
  });

  it.each([
    ['query', {}],
    ['fragment', { response_mode: 'fragment' }],
    ['form_post', { response_mode: 'form_post' }],
  ] as const)('carries iss with a code in %s mode, accepted by validateAuthResponse', async (mode, extra) => {
    const request = await authorizationRequest(codeApp.clientId, extra);
    const arrival = await arrive(request);
    expect({ mode: arrival.mode, target: arrival.target }).toEqual({ mode, target: REDIRECT });
    expect(arrival.params.get('iss')).toBe(node.baseUrl);
    const validated = oauth.validateAuthResponse(as, { client_id: codeApp.clientId }, arrival.params, request.state);
    expect(validated.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The check is live: the same response without iss, or with another issuer, is refused.
    const without = new URLSearchParams(arrival.params);
    without.delete('iss');
    expect(() => oauth.validateAuthResponse(as, { client_id: codeApp.clientId }, without, request.state)).toThrow(/"iss"/);
    const forged = new URLSearchParams(arrival.params);
    forged.set('iss', 'https://attacker.example');
    expect(() => oauth.validateAuthResponse(as, { client_id: codeApp.clientId }, forged, request.state)).toThrow(/"iss"/);
  });

  it('carries iss with an implicit id_token in the fragment (oauth4webapi has no implicit flow)', async () => {
    const request = await authorizationRequest(implicitApp.clientId, { response_type: 'id_token' });
    const arrival = await arrive(request);
    expect(arrival.mode).toBe('fragment');
    expect(arrival.params.get('iss')).toBe(node.baseUrl);
    expect(Object.fromEntries(arrival.params)).toEqual({ id_token: expect.any(String), state: request.state, iss: node.baseUrl });
  });

  it.each([
    ['query', {}],
    ['fragment', { response_mode: 'fragment' }],
    ['form_post', { response_mode: 'form_post' }],
  ] as const)('carries iss with errors in %s mode: a refused request and a login that cannot happen', async (mode, extra) => {
    const client = { client_id: codeApp.clientId };
    // Refused by the authorize endpoint itself.
    const badScope = await authorizationRequest(codeApp.clientId, { ...extra, scope: 'profile' });
    const refused = await arrive(badScope);
    expect({ mode: refused.mode, iss: refused.params.get('iss') }).toEqual({ mode, iss: node.baseUrl });
    expect(validatedError(client, refused, badScope.state)).toBe('invalid_scope');
    // Answered by the auth-request machine (stored request): prompt=none without a session.
    const silent = await authorizationRequest(codeApp.clientId, { ...extra, prompt: 'none' });
    const rejected = await arrive(silent);
    expect({ mode: rejected.mode, iss: rejected.params.get('iss') }).toEqual({ mode, iss: node.baseUrl });
    expect(validatedError(client, rejected, silent.state)).toBe('login_required');
  });
});

async function exchange(arrival: Arrival, request: Request): Promise<{ status: number; body: Record<string, unknown> }> {
  const code = oauth.validateAuthResponse(as, { client_id: codeApp.clientId }, arrival.params, request.state).get('code')!;
  const body = new URLSearchParams({ grant_type: 'authorization_code', client_id: codeApp.clientId, code, redirect_uri: REDIRECT, code_verifier: request.verifier });
  const response = await fetch(as.token_endpoint!, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('prompt=consent (OIDC Core §3.1.2.1)', () => {
  it.each(['consent', 'login consent', 'consent select_account'])('prompt=%s with offline_access gets a code and a refresh token', async (prompt) => {
    const request = await authorizationRequest(codeApp.clientId, { prompt, scope: 'openid offline_access' });
    const arrival = await arrive(request);
    expect(arrival.params.get('error')).toBeNull();
    const tokens = await exchange(arrival, request);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String), refresh_token: expect.any(String), scope: 'openid offline_access' });
  });

  it('refuses prompt=none combined with consent at the redirect URI with invalid_request', async () => {
    const request = await authorizationRequest(codeApp.clientId, { prompt: 'none consent' });
    const arrival = await arrive(request);
    expect(arrival.target).toBe(REDIRECT);
    expect(Object.fromEntries(arrival.params)).toMatchObject({ error: 'invalid_request', state: request.state, iss: node.baseUrl });
    expect(arrival.params.get('error_description')).toContain('prompt');
  });
});

describe('request objects (OIDC Core §6, §3.1.2.6)', () => {
  const REQUEST_OBJECT = 'eyJhbGciOiJub25lIn0.eyJzY29wZSI6Im9wZW5pZCJ9.';

  it.each([
    ['request', REQUEST_OBJECT, 'request_not_supported'],
    ['request_uri', 'https://rp.example/requests/1', 'request_uri_not_supported'],
  ])('refuses %s at the redirect URI with state and iss', async (name, value, error) => {
    const request = await authorizationRequest(codeApp.clientId, { [name]: value });
    const response = await fetch(request.url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error, state: request.state, iss: node.baseUrl });
    // The same request without it starts the login (positive control).
    request.url.searchParams.delete(name);
    const plain = await fetch(request.url, { redirect: 'manual' });
    expect(plain.headers.get('location')).toMatch(/^\/ui\/login\/login\?authRequest=/);
  });

  it('refuses a request object in the response mode asked for (form_post)', async () => {
    const request = await authorizationRequest(codeApp.clientId, { request: REQUEST_OBJECT, response_mode: 'form_post' });
    const arrival = await arrive(request);
    expect(arrival.mode).toBe('form_post');
    expect(Object.fromEntries(arrival.params)).toMatchObject({ error: 'request_not_supported', state: request.state, iss: node.baseUrl });
  });

  it('shows the error page, never a redirect, when the redirect URI is not registered', async () => {
    const request = await authorizationRequest(codeApp.clientId, { request: REQUEST_OBJECT, redirect_uri: 'http://127.0.0.1:1/evil' });
    const response = await fetch(request.url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
