/**
 * A login through the login UI with fetch, as a browser without JavaScript would do it: the
 * authorization request, the binding cookie it sets (kept in a small cookie jar), the login
 * pages' CSRF token, and the form POSTs with the node's own Origin.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TestNode } from './harness.js';

/** The cookies a browser would hold for the node (name → value; Path ignored: one host, one jar). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Takes the Set-Cookie headers of a response (Max-Age=0 removes). */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(eq + 1).trim());
    }
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  names(): string[] {
    return [...this.#cookies.keys()];
  }
}

export interface StartedLogin {
  readonly authRequest: string;
  /** The login page path (`/ui/login/login?authRequest=…`). */
  readonly location: string;
  readonly jar: CookieJar;
  /** The raw Set-Cookie line of the binding cookie. */
  readonly bindingCookie: string;
}

/** GETs the authorization URL and follows nothing: the redirect to the login page and its cookie. */
export async function startLogin(node: TestNode, authorizationUrl: URL | string, jar = new CookieJar()): Promise<StartedLogin> {
  const response = await fetch(authorizationUrl, { redirect: 'manual', headers: { cookie: jar.header() } });
  const location = response.headers.get('location');
  if (response.status !== 303 || location === null || !location.startsWith('/ui/login/login?')) throw new Error(`authorize: ${response.status} ${location}`);
  jar.take(response);
  const authRequest = new URL(location, node.baseUrl).searchParams.get('authRequest') ?? '';
  const bindingCookie = response.headers.getSetCookie().find((c) => c.startsWith(`tessera_login_${authRequest}=`)) ?? '';
  return { authRequest, location, jar, bindingCookie };
}

export interface PageResult {
  readonly status: number;
  readonly text: string;
  readonly location: string | null;
  readonly response: Response;
}

async function toPage(response: Response): Promise<PageResult> {
  return { status: response.status, text: await response.text(), location: response.headers.get('location'), response };
}

/** GETs a login page path with the jar's cookies (or the given Cookie header). */
export async function getPage(node: TestNode, path: string, cookie: string): Promise<PageResult> {
  return toPage(await fetch(`${node.baseUrl}${path}`, { redirect: 'manual', headers: { cookie } }));
}

/** The CSRF token in a login page. */
export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error(`no csrf token in ${html.slice(0, 300)}`);
  return match[1];
}

/** POSTs a login form; headers default to the jar's cookies and the node's own Origin. */
export async function postLogin(node: TestNode, form: Record<string, string>, headers: Record<string, string>): Promise<PageResult> {
  const response = await fetch(`${node.baseUrl}/ui/login/login`, {
    method: 'POST',
    body: new URLSearchParams(form),
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return toPage(response);
}

export interface LoginSteps {
  readonly started: StartedLogin;
  readonly csrf: string;
  /** The headers a same-origin browser sends with the form: the cookies and Origin. */
  readonly headers: Record<string, string>;
}

/** Starts the login and opens the login page as the same browser (cookie jar, own Origin). */
export async function openLogin(node: TestNode, authorizationUrl: URL | string): Promise<LoginSteps> {
  const started = await startLogin(node, authorizationUrl);
  const page = await getPage(node, started.location, started.jar.header());
  if (page.status !== 200) throw new Error(`login page: ${page.status}`);
  return { started, csrf: csrfOf(page.text), headers: { cookie: started.jar.header(), origin: node.baseUrl } };
}

/** Enters the login name and returns the password page (same browser). */
export async function submitLoginName(node: TestNode, steps: LoginSteps, loginName: string): Promise<PageResult> {
  const posted = await postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, action: 'loginname', loginName }, steps.headers);
  if (posted.status !== 303 || posted.location === null) return posted;
  return getPage(node, posted.location, steps.started.jar.header());
}

/** POSTs the password step (same browser unless `headers` override). */
export function submitPassword(node: TestNode, steps: LoginSteps, password: string, headers: Record<string, string> = steps.headers): Promise<PageResult> {
  return postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, action: 'password', password }, headers);
}

export interface CodeRequest {
  readonly url: URL;
  readonly verifier: string;
  readonly state: string;
}

/** An authorization code request (PKCE S256) for a public client; `extra` adds parameters. */
export function codeRequest(node: TestNode, clientId: string, redirectUri: string, extra: Record<string, string> = {}): CodeRequest {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const url = new URL('/oauth/v2/authorize', node.baseUrl);
  const params = {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { url, verifier, state };
}

/** The claims of the ID token the code exchange of `request` answers (a public client; the payload decoded, not verified). */
export async function idTokenClaimsOf(node: TestNode, clientId: string, redirectUri: string, request: Pick<CodeRequest, 'verifier'>, code: string): Promise<{ amr: string[]; sid: string } & Record<string, unknown>> {
  const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: redirectUri, code_verifier: request.verifier }),
  });
  const idToken = ((await response.json()) as { id_token: string }).id_token;
  return JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr: string[]; sid: string } & Record<string, unknown>;
}

/** Logs in with login name and password as one browser (the jar); returns the redirect location with the code. */
export async function logInWithFetch(node: TestNode, request: CodeRequest, loginName: string, password: string, jar = new CookieJar()): Promise<string> {
  const started = await startLogin(node, request.url, jar);
  const page = await getPage(node, started.location, jar.header());
  const steps: LoginSteps = { started, csrf: csrfOf(page.text), headers: { cookie: jar.header(), origin: node.baseUrl } };
  const named = await submitLoginName(node, steps, loginName);
  if (named.status !== 200) throw new Error(`login name: ${named.status}`);
  const done = await submitPassword(node, steps, password);
  jar.take(done.response);
  if (done.status !== 303 || done.location === null) throw new Error(`password: ${done.status} ${done.text.slice(0, 200)}`);
  return done.location;
}
