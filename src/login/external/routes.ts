/**
 * The external login's two endpoints:
 *
 * - `GET /ui/login/external/start?authRequest=&idp=&csrf=` (the login name page's links): checks
 *   the auth request's CSRF token and that the IDP is active for the login, stores the pending
 *   login (state, nonce, PKCE verifier) under the `state` value, sets the browser-binding
 *   cookie and redirects to the provider's authorization endpoint.
 * - `GET /ui/login/external/callback` (the redirect URI registered at the provider): takes the
 *   pending login of `state` once (unknown, reused or from another browser → error page),
 *   exchanges the code and resolves the external user (resolve.ts).
 */
import type { Route } from '../../http/router.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';
import type { AuthFlowDeps } from '../../oidc/shared/auth-flow-deps.js';
import { requireInstance, withErrorReplies } from '../../oidc/shared/endpoint.js';
import { parseUrlEncoded, type FormParams } from '../../oidc/shared/form.js';
import { OAuthError } from '../../../actors/index.js';
import { chooseLanguage, createTranslator } from '../../i18n/index.js';
import { isCsrfValid, type LoginContext } from '../login-context.js';
import { renderErrorPage } from '../pages.js';
import { renderStep } from '../render-step.js';
import { pagePolicyOf, renderRefusedPage } from '../login-policy.js';
import { activeLoginIdp } from './login-idps.js';
import { EXTERNAL_CALLBACK_PATH, EXTERNAL_START_PATH, renderContinuePage } from './pages.js';
import { bindingCookie, clearedBindingCookie, digestOf, randomToken, savePending, takePending } from './pending.js';
import { createExternalProvider, ExternalLoginError, type ExternalProvider } from './provider.js';
import { acceptsExternalLogin, resolveExternalUser } from './resolve.js';

/**
 * Loads the login context of an auth request id (undefined: unknown or expired; a reply: the
 * page refusing a browser that does not hold the request's binding, see ../routes.ts).
 */
export type ContextLoader = (req: HttpRequest, id: string | undefined) => Promise<LoginContext | HttpReply | undefined>;

export function isRefusal(loaded: LoginContext | HttpReply): loaded is HttpReply {
  return 'status' in loaded;
}

export function externalLoginRoutes(deps: AuthFlowDeps, load: ContextLoader, provider: ExternalProvider = createExternalProvider(deps.config.forgeIssuer, () => deps.clock.now(), { allowPrivateNetworks: deps.config.outboundAllowPrivateNetworks })): Route[] {
  return [
    { method: 'GET', pattern: EXTERNAL_START_PATH, handler: withErrorReplies((req) => start(req, deps, load, provider)) },
    { method: 'GET', pattern: EXTERNAL_CALLBACK_PATH, handler: withErrorReplies((req) => callback(req, deps, load, provider)) },
  ];
}

function errorPage(req: HttpRequest, key: 'externalStateInvalid' | 'authRequestUnknown', status: number): HttpReply {
  return renderErrorPage(createTranslator(chooseLanguage([], req.headers['accept-language'])), key, status);
}

async function start(req: HttpRequest, deps: AuthFlowDeps, load: ContextLoader, provider: ExternalProvider): Promise<HttpReply> {
  const query = queryOf(req);
  const ctx = query === undefined ? undefined : await load(req, query.get('authRequest'));
  if (query === undefined || ctx === undefined) return errorPage(req, 'authRequestUnknown', 404);
  if (isRefusal(ctx)) return ctx;
  if (!isCsrfValid(ctx.stored, query.get('csrf'))) return { ...(await renderStep(ctx, 'csrfInvalid')), status: 403 };
  if (!acceptsExternalLogin(ctx)) return renderStep(ctx);
  if (!(await pagePolicyOf(ctx)).allowExternalIdp) return renderRefusedPage(ctx, 'externalIdpDisabled');
  const found = await activeLoginIdp(ctx, query.get('idp'));
  if (found === undefined) return renderErrorPage(ctx.form.tr, 'externalIdpInactive', 403);
  const state = randomToken();
  const binding = randomToken();
  const redirectUri = `${ctx.stored.issuer}${EXTERNAL_CALLBACK_PATH}`;
  try {
    const authorization = await provider.start(found.idp, redirectUri, state);
    const pending = { authRequestId: ctx.stored.id, idpId: found.idp.id, nonce: authorization.nonce, codeVerifier: authorization.codeVerifier, redirectUri, bindingDigest: digestOf(binding) };
    await savePending(deps.ttl, ctx.instanceId, state, pending, deps.clock.now());
    return { status: 303, headers: { location: authorization.url, 'cache-control': 'no-store', 'set-cookie': bindingCookie(binding, req.scheme === 'https') }, body: '' };
  } catch (error) {
    if (!(error instanceof ExternalLoginError)) throw error;
    return renderErrorPage(ctx.form.tr, 'externalLoginFailed', 502);
  }
}

async function callback(req: HttpRequest, deps: AuthFlowDeps, load: ContextLoader, provider: ExternalProvider): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  const query = queryOf(req);
  const state = query?.get('state') ?? '';
  const pending = await takePending(deps.ttl, instance.id, state, req.headers.cookie);
  if (query === undefined || pending === undefined) return errorPage(req, 'externalStateInvalid', 400);
  const ctx = await load(req, pending.authRequestId);
  if (ctx === undefined) return errorPage(req, 'authRequestUnknown', 404);
  if (isRefusal(ctx)) return ctx;
  if (!acceptsExternalLogin(ctx)) return renderStep(ctx);
  if (!(await pagePolicyOf(ctx)).allowExternalIdp) return withBindingCleared(renderRefusedPage(ctx, 'externalIdpDisabled'), req.scheme === 'https');
  // The IDP may have been deactivated or removed while the user was at the provider.
  const found = await activeLoginIdp(ctx, pending.idpId);
  if (found === undefined) return renderErrorPage(ctx.form.tr, 'externalIdpInactive', 403);
  const callbackUrl = new URL(`${pending.redirectUri}?${req.query}`);
  let reply: HttpReply;
  try {
    const ext = await provider.finish(found.idp, callbackUrl, { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri });
    reply = await resolveExternalUser(ctx, found.idp, found.login, ext);
  } catch (error) {
    if (!(error instanceof ExternalLoginError)) throw error;
    // A provider that sent the user back with an error refused; anything else is a bad gateway.
    reply = renderErrorPage(ctx.form.tr, 'externalLoginFailed', error.refused ? 400 : 502);
  }
  return withBindingCleared(outOfRedirectChain(ctx, reply), req.scheme === 'https');
}

/** A redirect away from this host (to the client) becomes a continue page (see renderContinuePage). */
function outOfRedirectChain(ctx: LoginContext, reply: HttpReply): HttpReply {
  const location = reply.headers?.['location'];
  if (reply.status < 300 || reply.status > 399 || typeof location !== 'string' || location.startsWith('/')) return reply;
  const { location: _dropped, ...headers } = reply.headers ?? {};
  const page = renderContinuePage(ctx.form, location);
  return { ...page, headers: { ...headers, ...page.headers } };
}

/** The binding cookie has served its purpose once the callback took the pending login. */
function withBindingCleared(reply: HttpReply, secure: boolean): HttpReply {
  const cleared = clearedBindingCookie(secure);
  const existing = reply.headers?.['set-cookie'];
  const cookies = existing === undefined ? [cleared] : [...(Array.isArray(existing) ? existing : [existing as string]), cleared];
  return { ...reply, headers: { ...reply.headers, 'set-cookie': cookies } };
}

function queryOf(req: HttpRequest): FormParams | undefined {
  try {
    return parseUrlEncoded(req.query);
  } catch (error) {
    if (error instanceof OAuthError) return undefined;
    throw error;
  }
}

