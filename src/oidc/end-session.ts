/**
 * GET|POST /oidc/v1/end_session (OIDC RP-Initiated Logout 1.0 §2, §3; reference facts §5.6):
 * the client comes from the id_token_hint's azp or from client_id (both given → must be equal);
 * post_logout_redirect_uri must be registered for that client and is ignored without a client;
 * state is appended. The hinted session (sid), else every session of the cookie, ends.
 * The hint may have expired: only signature and issuer are checked. Tokens issued under an
 * ended session are revoked.
 *
 * Without id_token_hint nothing proves the logout comes from a client of the user (a foreign
 * page could sign the user out: logout CSRF), so the user confirms first: a page with a form
 * that posts the parameters back with a single-use token. The token is stored (TTL table,
 * 10 minutes) with the digest of a random value in the `tessera_logout` cookie (HttpOnly,
 * SameSite=Lax, path of this endpoint): only the browser that got the page can confirm, and
 * a POST with a foreign Origin or `Sec-Fetch-Site: cross-site` is refused.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { OAuthError, type TtlStore } from '../../actors/index.js';
import { findAppByClientId } from '../query/app-clients.js';
import { redirect } from '../http/reply.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { clearCookie, readCookie, setCookie, type CookieScope } from '../http/cookies.js';
import { readBrowserSessions, terminateBrowserSessions, toSessionCookie } from '../login/browser-sessions.js';
import { chooseLanguage, createTranslator } from '../i18n/index.js';
import { renderErrorPage, renderLogoutConfirmPage, renderMessagePage } from '../login/pages.js';
import { formActionSource } from './shared/authorization-response.js';
import { parseUiLocales } from './authorize/request-checks.js';
import type { AuthFlowDeps } from './shared/auth-flow-deps.js';
import { requireInstance, withErrorReplies } from './shared/endpoint.js';
import { parseForm, type FormParams } from './shared/form.js';
import { issuerFor } from './shared/issuer.js';
import { revokeSessionGrants } from './shared/session-grants.js';

export const END_SESSION_PATH = '/oidc/v1/end_session';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;
const CONFIRM_TABLE = 'logout_confirmations';
const CONFIRM_LIFETIME_MS = 10 * 60_000;
const CONFIRM_COOKIE = 'tessera_logout';
/** What the confirmation form posts back (besides its token). */
const CONFIRMED_PARAMS = ['client_id', 'post_logout_redirect_uri', 'state', 'ui_locales'] as const;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

interface LogoutHint {
  readonly azp?: string;
  readonly sid?: string;
}

export function endSessionRoutes(deps: AuthFlowDeps): Route[] {
  const handler = withErrorReplies((req) => handleEndSession(req, deps));
  return [
    { method: 'GET', pattern: END_SESSION_PATH, handler },
    { method: 'POST', pattern: END_SESSION_PATH, handler },
  ];
}

export async function handleEndSession(req: HttpRequest, deps: AuthFlowDeps): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  let params: FormParams | undefined;
  try {
    params = parseForm(req);
    const issuer = issuerFor(deps.config, req) ?? '';
    const hint = await readHint(deps, instance.id, issuer, params.get('id_token_hint'));
    const target = await checkPostLogoutRedirect(deps, instance.id, params, hint);
    const cookies: string[] = [];
    if (params.get('id_token_hint') === undefined) {
      const confirmation = await checkConfirmation(deps.ttl, instance.id, req, params, issuer);
      if (confirmation === 'absent') return await confirmationPage(deps, instance.id, req, params, target);
      if (confirmation === 'refused') return renderErrorPage(translatorOf(req, params), 'logoutRefused', 403);
      cookies.push(clearCookie(CONFIRM_COOKIE, confirmCookieScope(req)));
    }
    cookies.unshift(await endSessions(deps, instance.id, req, hint.sid));
    const headers = { 'set-cookie': cookies, 'cache-control': 'no-store' };
    if (target === undefined) {
      const page = loggedOutPage(req, params);
      return { ...page, headers: { ...page.headers, ...headers } };
    }
    return { ...redirect(target, 303), headers: { location: target, ...headers } };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return renderErrorPage(translatorOf(req, params), 'requestInvalid');
  }
}

async function readHint(deps: AuthFlowDeps, instanceId: string, issuer: string, hint: string | undefined): Promise<LogoutHint> {
  if (hint === undefined) return {};
  try {
    const { payload } = await deps.signer.verifyJwt(instanceId, hint, { issuer, clockToleranceSec: TEN_YEARS_S });
    return {
      ...(typeof payload.azp === 'string' ? { azp: payload.azp } : {}),
      ...(typeof payload.sid === 'string' ? { sid: payload.sid } : {}),
    };
  } catch (error) {
    throw new OAuthError('invalid_request', 'the id_token_hint is invalid', { redirectable: false, cause: error });
  }
}

/** The redirect URI with state, or undefined for the logged-out page. */
async function checkPostLogoutRedirect(deps: AuthFlowDeps, instanceId: string, params: FormParams, hint: LogoutHint): Promise<string | undefined> {
  const clientId = params.get('client_id');
  if (clientId !== undefined && hint.azp !== undefined && clientId !== hint.azp) {
    throw new OAuthError('invalid_request', 'client_id differs from the id_token_hint', { redirectable: false });
  }
  const uri = params.get('post_logout_redirect_uri');
  const client = clientId ?? hint.azp;
  if (uri === undefined || client === undefined) return undefined;
  const app = await findAppByClientId(deps.actors, instanceId, client);
  const config = app?.app.state.config;
  if (config?.type !== 'oidc' || !config.oidc.postLogoutRedirectUris.includes(uri)) {
    throw new OAuthError('invalid_request', 'the post_logout_redirect_uri is not registered', { redirectable: false });
  }
  const url = new URL(uri);
  const state = params.get('state');
  if (state !== undefined) url.searchParams.append('state', state);
  return url.toString();
}

/** Ends the hinted session (by sid) or all sessions of the cookie; returns the new cookie. */
async function endSessions(deps: AuthFlowDeps, instanceId: string, req: HttpRequest, sid: string | undefined): Promise<string> {
  const held = await readBrowserSessions(deps.actors, instanceId, req.headers.cookie);
  const ending = sid === undefined ? held : held.filter((h) => h.session.sessionId === sid);
  await terminateBrowserSessions(deps.actors, instanceId, ending);
  for (const { session } of ending) await revokeSessionGrants(deps.ttl, deps.tokens, instanceId, session.sessionId);
  const kept = held.filter((h) => !ending.includes(h)).map((h) => h.token);
  return toSessionCookie(kept, req.scheme === 'https');
}

function loggedOutPage(req: HttpRequest, params: FormParams): HttpReply {
  return renderMessagePage(translatorOf(req, params), 'loggedOutTitle', 'loggedOut');
}

function translatorOf(req: HttpRequest, params: FormParams | undefined) {
  return createTranslator(chooseLanguage(parseUiLocales(params?.get('ui_locales')), req.headers['accept-language']));
}

function digestOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

function confirmCookieScope(req: HttpRequest): CookieScope {
  return { path: END_SESSION_PATH, secure: req.scheme === 'https' };
}

function confirmCookieOf(cookieHeader: string | undefined): string | undefined {
  const value = readCookie(cookieHeader, CONFIRM_COOKIE);
  return value !== undefined && TOKEN.test(value) ? value : undefined;
}

/** The confirmation page with a fresh single-use token bound to this browser's cookie. */
async function confirmationPage(deps: AuthFlowDeps, instanceId: string, req: HttpRequest, params: FormParams, target: string | undefined): Promise<HttpReply> {
  const binding = confirmCookieOf(req.headers.cookie) ?? randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  await deps.ttl.put(instanceId, CONFIRM_TABLE, digestOf(csrf), { bindingDigest: digestOf(binding) }, deps.clock.now() + CONFIRM_LIFETIME_MS);
  const kept: Record<string, string> = {};
  for (const name of CONFIRMED_PARAMS) {
    const value = params.get(name);
    if (value !== undefined) kept[name] = value;
  }
  const page = renderLogoutConfirmPage(translatorOf(req, params), {
    action: END_SESSION_PATH,
    csrf,
    params: kept,
    ...(target === undefined ? {} : { formActionOrigin: formActionSource(target) }),
  });
  const cookie = setCookie(CONFIRM_COOKIE, binding, CONFIRM_LIFETIME_MS / 1000, confirmCookieScope(req));
  return { ...page, headers: { ...page.headers, 'set-cookie': cookie } };
}

/**
 * `absent`: no confirmation was posted (show the page); `confirmed`: a POST with a live token
 * of this browser, not from another site (the token is used up); `refused` otherwise.
 */
async function checkConfirmation(ttl: TtlStore, instanceId: string, req: HttpRequest, params: FormParams, issuer: string): Promise<'absent' | 'confirmed' | 'refused'> {
  const posted = params.get('csrf');
  if (req.method !== 'POST' || posted === undefined) return 'absent';
  if (req.headers['sec-fetch-site'] === 'cross-site') return 'refused';
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== originOf(issuer)) return 'refused';
  if (!TOKEN.test(posted)) return 'refused';
  const row = (await ttl.take(instanceId, CONFIRM_TABLE, digestOf(posted))) as { bindingDigest?: unknown } | undefined;
  const binding = confirmCookieOf(req.headers.cookie);
  if (row === undefined || typeof row.bindingDigest !== 'string' || binding === undefined) return 'refused';
  const expected = Buffer.from(row.bindingDigest);
  const actual = Buffer.from(digestOf(binding));
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? 'confirmed' : 'refused';
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
