/**
 * GET|POST /oauth/v2/authorize (RFC 6749 §4.1.1, OIDC Core §3.1.2): checks the request step by
 * step (one module per check under authorize/), starts the auth-request machine with the
 * browser's sessions, and either answers at once (prompt=none, a reusable session) or sends the
 * browser to the login UI. Errors go to the redirect URI in the response mode with state, except
 * while the client or redirect URI is in doubt: then an error page on the server (§4.1.2.1).
 */
import { initialTransition } from 'xstate';
import { authRequestMachine, OAuthError } from '../../actors/index.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { readBrowserSessions } from '../login/browser-sessions.js';
import { chooseLanguage, createTranslator } from '../i18n/index.js';
import { loginOrgOf, sessionsAdmitted } from '../login/login-org.js';
import { renderErrorPage } from '../login/pages.js';
import { checkIdTokenHint } from './authorize/id-token-hint.js';
import { resolveRedirectTarget, type RedirectTarget } from './authorize/redirect-target.js';
import { checkMaxAge, checkNoRequestObject, checkNonce, checkPkce, checkPrompt, checkScope, checkState, parseUiLocales } from './authorize/request-checks.js';
import { checkResponseType, parseResponseType, resolveResponseMode } from './authorize/response-type.js';
import type { AuthFlowDeps } from './shared/auth-flow-deps.js';
import { settleAuthRequest } from './shared/auth-request-flow.js';
import { browserBindingCookie, createAuthRequestId, createBrowserBinding, createCsrfToken, toPersistedMachine, type AuthorizeRequest } from './shared/auth-requests.js';
import { toAuthorizationError } from './shared/authorization-response.js';
import { parseForm, type FormParams } from './shared/form.js';
import { requireInstance, withErrorReplies } from './shared/endpoint.js';
import { issuerFor } from './shared/issuer.js';

export const AUTHORIZE_PATH = '/oauth/v2/authorize';

export function authorizeRoutes(deps: AuthFlowDeps): Route[] {
  const handler = withErrorReplies((req) => handleAuthorize(req, deps));
  return [
    { method: 'GET', pattern: AUTHORIZE_PATH, handler },
    { method: 'POST', pattern: AUTHORIZE_PATH, handler },
  ];
}

export async function handleAuthorize(req: HttpRequest, deps: AuthFlowDeps): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  let target: RedirectTarget | undefined;
  let params: FormParams | undefined;
  try {
    params = parseForm(req);
    checkState(params.get('state'));
    target = await resolveRedirectTarget(deps.actors, instance.id, params);
    const request = await checkAuthorizeRequest(deps, instance.id, req, params, target);
    return await startAuthRequest(deps, instance.id, req, request);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    if (!error.redirectable || target === undefined || params === undefined) return errorPage(req, params, error);
    const state = params.get('state');
    const responseMode = resolveResponseMode(params.get('response_mode'), parseResponseType(params.get('response_type')));
    const issuer = issuerFor(deps.config, req) ?? '';
    return toAuthorizationError({ redirectUri: target.redirectUri, responseMode, issuer, ...(state === undefined ? {} : { state }) }, error);
  }
}

async function checkAuthorizeRequest(deps: AuthFlowDeps, instanceId: string, req: HttpRequest, params: FormParams, target: RedirectTarget): Promise<AuthorizeRequest> {
  checkNoRequestObject(params.get('request'), params.get('request_uri'));
  const responseType = checkResponseType(params.get('response_type'), target.oidc);
  const scopes = checkScope(params.get('scope'));
  const codeChallenge = checkPkce({ challenge: params.get('code_challenge'), method: params.get('code_challenge_method') }, target.oidc, responseType);
  const nonce = checkNonce(params.get('nonce'), responseType);
  const prompt = checkPrompt(params.get('prompt'));
  const maxAge = checkMaxAge(params.get('max_age'));
  const issuer = issuerFor(deps.config, req) ?? '';
  const hintUserId = await checkIdTokenHint(deps.signer, instanceId, issuer, params.get('id_token_hint'));
  const optional = { state: params.get('state'), nonce, codeChallenge, maxAge, loginHint: params.get('login_hint'), hintUserId };
  return {
    clientId: target.client.app.state.clientId,
    redirectUri: target.redirectUri,
    responseType,
    responseMode: resolveResponseMode(params.get('response_mode'), responseType),
    scopes,
    prompt,
    uiLocales: parseUiLocales(params.get('ui_locales')),
    ...(Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) as Partial<AuthorizeRequest>),
  };
}

async function startAuthRequest(deps: AuthFlowDeps, instanceId: string, req: HttpRequest, request: AuthorizeRequest): Promise<HttpReply> {
  const held = await readBrowserSessions(deps.actors, instanceId, req.headers.cookie);
  // An org-scoped request reuses only sessions of users of that org (reference facts §5.1).
  const loginOrg = await loginOrgOf(deps.actors, instanceId, request.scopes);
  const sessions = await sessionsAdmitted(deps.actors, instanceId, loginOrg, held.map((h) => h.session));
  const now = deps.clock.now();
  const [snapshot, actions] = initialTransition(authRequestMachine, {
    prompt: request.prompt,
    sessions,
    now,
    ...(request.maxAge === undefined ? {} : { maxAge: request.maxAge }),
    ...(request.loginHint === undefined ? {} : { loginHint: request.loginHint }),
    ...(request.hintUserId === undefined ? {} : { hintUserId: request.hintUserId }),
  });
  const issuer = issuerFor(deps.config, req) ?? '';
  // The login steps only accept this browser (the binding cookie; see shared/auth-requests.ts).
  const binding = createBrowserBinding();
  const stored = { id: createAuthRequestId(), issuer, request, csrf: createCsrfToken(), bindingDigest: binding.digest, machine: toPersistedMachine(snapshot), createdAt: now };
  const cookie = browserBindingCookie(stored.id, binding.value, req.scheme === 'https');
  return settleAuthRequest(deps, instanceId, stored, { snapshot, actions }, {}, { saved: false, bindingCookie: cookie });
}

function errorPage(req: HttpRequest, params: FormParams | undefined, error: OAuthError): HttpReply {
  const tr = createTranslator(chooseLanguage(parseUiLocales(params?.get('ui_locales')), req.headers['accept-language']));
  return renderErrorPage(tr, error.oauthCode === 'invalid_client' || params?.has('client_id') === true ? 'clientInvalid' : 'requestInvalid');
}
