/**
 * Fixtures of the code flow suite: a callback server on 127.0.0.1 that records what arrives
 * at the redirect URI (query or form_post body), and the tenant setup (project, public OIDC app,
 * API app for introspection, human users with passwords) made through the APIs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { api, type TestNode } from './harness.js';

export interface Callback {
  readonly method: string;
  readonly url: string;
  readonly params: URLSearchParams;
}

export interface CallbackServer {
  readonly redirectUri: string;
  /** Resolves with the next request to the callback path. */
  next(): Promise<Callback>;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const waiting: ((cb: Callback) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      // Only the redirect path is a callback: a browser's late /favicon.ico must not count as one.
      if (!url.pathname.startsWith('/cb')) return void res.writeHead(404).end();
      const params = req.method === 'POST' ? new URLSearchParams(Buffer.concat(chunks).toString()) : url.searchParams;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('callback received');
      waiting.shift()?.({ method: req.method ?? '', url: url.toString(), params });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}/cb`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Waits until `page` shows the callback (its navigation committed and loaded). The callback
 * server answers before the browser commits that navigation, and when a login's last step is
 * started by the page's script (a passkey ceremony, then a form submit) the click has returned
 * long before: a `page.goto` of the next login made in between is interrupted by the redirect.
 */
export async function landedOnCallback(page: Page, callback: CallbackServer): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
}

export interface FlowTenant {
  readonly projectId: string;
  readonly clientId: string;
  readonly introspector: { readonly clientId: string; readonly clientSecret: string };
}

export const PASSWORD = 'Secr3tPassword';

export async function createFlowTenant(node: TestNode, redirectUri: string): Promise<FlowTenant> {
  const call = api(node);
  const projectId: string = (await call('POST', '/resources/v3alpha/projects', { name: 'Code Flow' })).body.details.id;
  const app = await call('POST', '/resources/v3alpha/apps', {
    projectId,
    name: 'SPA',
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [redirectUri],
      postLogoutRedirectUris: [`${redirectUri}/logged-out`],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
    },
  });
  if (app.status !== 201) throw new Error(`app: ${JSON.stringify(app.body)}`);
  const introspector = await call('POST', '/resources/v3alpha/apps', { projectId, name: 'Introspector', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  if (introspector.status !== 201) throw new Error(`api app: ${JSON.stringify(introspector.body)}`);
  return { projectId, clientId: app.body.clientId, introspector: { clientId: introspector.body.clientId, clientSecret: introspector.body.clientSecret } };
}

/** A human user with PASSWORD; returns its id. */
export async function createHuman(node: TestNode, username: string): Promise<string> {
  const created = await api(node)('POST', '/resources/v3alpha/users', {
    human: { username, profile: { givenName: 'Flow', familyName: 'User' }, email: { address: `${username}@example.com` }, password: PASSWORD },
  });
  if (created.status !== 201) throw new Error(`user: ${JSON.stringify(created.body)}`);
  return created.body.details.id;
}

/** An implicit-flow app (id_token and "id_token token", JWT access tokens) in the project. */
export async function createImplicitApp(node: TestNode, projectId: string, redirectUri: string, options: { userinfoAssertion?: boolean } = {}): Promise<string> {
  const app = await api(node)('POST', '/resources/v3alpha/apps', {
    projectId,
    name: `Implicit ${options.userinfoAssertion === true ? 'with' : 'without'} userinfo`,
    oidc: {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [redirectUri],
      responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN', 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
      idTokenUserinfoAssertion: options.userinfoAssertion === true,
    },
  });
  if (app.status !== 201) throw new Error(`implicit app: ${JSON.stringify(app.body)}`);
  return app.body.clientId;
}
