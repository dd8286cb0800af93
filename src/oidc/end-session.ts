/**
 * GET|POST /oidc/v1/end_session (OIDC RP-Initiated Logout 1.0 §2, §3; reference facts §5.6):
 * the client comes from the id_token_hint's azp or from client_id (both given → must be equal);
 * post_logout_redirect_uri must be registered for that client and is ignored without a client;
 * state is appended. The hinted session (sid), else every session of the cookie, ends.
 * The hint may have expired: only signature and issuer are checked. Tokens issued under an
 * ended session are revoked.
 */
import { OAuthError } from '../../actors/index.js';
import { findAppByClientId } from '../query/app-clients.js';
import { redirect } from '../http/reply.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { readBrowserSessions, terminateBrowserSessions, toSessionCookie } from '../login/browser-sessions.js';
import { chooseLanguage, createTranslator } from '../login/i18n/index.js';
import { renderErrorPage, renderMessagePage } from '../login/pages.js';
import { parseUiLocales } from './authorize/request-checks.js';
import type { AuthFlowDeps } from './shared/auth-flow-deps.js';
import { requireInstance, withErrorReplies } from './shared/endpoint.js';
import { parseForm, type FormParams } from './shared/form.js';
import { issuerFor } from './shared/issuer.js';
import { revokeSessionGrants } from './shared/session-grants.js';

export const END_SESSION_PATH = '/oidc/v1/end_session';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

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
    const hint = await readHint(deps, instance.id, issuerFor(deps.config, req) ?? '', params.get('id_token_hint'));
    const target = await checkPostLogoutRedirect(deps, instance.id, params, hint);
    const cookie = await endSessions(deps, instance.id, req, hint.sid);
    const headers = { 'set-cookie': cookie, 'cache-control': 'no-store' };
    if (target === undefined) {
      const page = loggedOutPage(req, params);
      return { ...page, headers: { ...page.headers, ...headers } };
    }
    return { ...redirect(target, 303), headers: { location: target, ...headers } };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const tr = createTranslator(chooseLanguage(parseUiLocales(params?.get('ui_locales')), req.headers['accept-language']));
    return renderErrorPage(tr, 'requestInvalid');
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
  const tr = createTranslator(chooseLanguage(parseUiLocales(params.get('ui_locales')), req.headers['accept-language']));
  return renderMessagePage(tr, 'loggedOutTitle', 'loggedOut');
}
