/**
 * The login UI endpoint: GET renders the current step of an auth request, POST submits one
 * (login name, password, TOTP code, account choice, registration). Every POST carries the request's CSRF
 * token; an unknown or expired auth request gets an error page.
 *
 * Every step (GET and POST here, the external login's start and callback) first checks that
 * the browser holds the auth request's binding cookie (set by the authorization endpoint), and
 * a POST that its `Origin` (when sent, and not "null") is the origin of the issuer the request came in under and that
 * `Sec-Fetch-Site` (when sent) is not `cross-site`; otherwise the "start again" page (403).
 */
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import type { AuthFlowDeps } from '../oidc/shared/auth-flow-deps.js';
import { LOGIN_PATH } from '../oidc/shared/auth-request-flow.js';
import { isBoundToBrowser, loadAuthRequest } from '../oidc/shared/auth-requests.js';
import { requireInstance, withErrorReplies } from '../oidc/shared/endpoint.js';
import { parseForm, parseUrlEncoded, type FormParams } from '../oidc/shared/form.js';
import { AppError, OAuthError } from '../../actors/index.js';
import { chooseLanguage, createTranslator } from '../i18n/index.js';
import { createPageLanguagesResolver, type PageLanguagesResolver } from '../oidc/shared/ui-locales.js';
import { createCustomizationResolver, customizeLoginContext } from './appearance.js';
import { createLoginContext, loginAudienceOf, isCsrfValid, type LoginContext } from './login-context.js';
import { renderErrorPage } from './pages.js';
import { renderStep } from './render-step.js';
import { requestPasswordResetStep, submitPasswordResetStep } from './password-reset.js';
import { requestRegistration, submitRegistration } from './register.js';
import { refusedByPolicy } from './login-policy.js';
import { chooseEnrolment, submitEnrolment } from './mfa-enrolment.js';
import { selectAccount, submitLoginName, submitPassword, useOtherAccount } from './steps.js';
import { resendSecondFactorCode, selectSecondFactor, submitSecondFactor } from './second-factor.js';
import { resendVerificationStep, submitVerificationStep } from './contact-verification.js';
import { requestPasskeyLogin, submitPasskey } from './passkey.js';
import { passkeyScriptRoute } from './passkey-script.js';
import { confirmProposedLink, createExternalAccount, linkOtherAccount } from './external/resolve.js';
import { externalLoginRoutes, isRefusal, type ContextLoader } from './external/routes.js';

export function loginRoutes(deps: AuthFlowDeps): Route[] {
  const languages = createPageLanguagesResolver(deps.actors);
  const customization = createCustomizationResolver(deps.actors);
  // Texts and branding of the login context (issue 6) apply to every page of the request.
  const load: ContextLoader = async (req, id) => {
    const ctx = await loadContext(req, deps, languages, id);
    if (ctx === undefined) return undefined;
    const customized = await customizeLoginContext(customization, ctx);
    return isSameBrowser(req, ctx) ? customized : renderErrorPage(customized.form.tr, 'loginNotBound', 403);
  };
  return [
    { method: 'GET', pattern: LOGIN_PATH, handler: withErrorReplies((req) => showLogin(req, load)) },
    { method: 'POST', pattern: LOGIN_PATH, handler: withErrorReplies((req) => submitLogin(req, load)) },
    ...externalLoginRoutes(deps, load),
    passkeyScriptRoute(),
  ];
}

function unknownRequest(req: HttpRequest): HttpReply {
  const tr = createTranslator(chooseLanguage([], req.headers['accept-language']));
  return renderErrorPage(tr, 'authRequestUnknown', 404);
}

/** The binding cookie of the request, and for a POST no sign of a foreign site. */
function isSameBrowser(req: HttpRequest, ctx: LoginContext): boolean {
  if (!isBoundToBrowser(ctx.stored, req.headers.cookie)) return false;
  if (req.method !== 'POST') return true;
  if (req.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === 'null' || origin === originOf(ctx.stored.issuer);
}

/** The origin of the issuer the request came in under (the login pages are served there). */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

async function loadContext(req: HttpRequest, deps: AuthFlowDeps, languages: PageLanguagesResolver, id: string | undefined): Promise<LoginContext | undefined> {
  const instance = await requireInstance(deps.tenants, req);
  const stored = id === undefined ? undefined : await loadAuthRequest(deps.ttl, instance.id, id);
  if (stored === undefined) return undefined;
  const [pageLanguages, audience] = await Promise.all([languages(instance.id), loginAudienceOf(deps.actors, instance.id, stored)]);
  return createLoginContext(deps, instance.id, req, stored, pageLanguages, audience);
}

async function showLogin(req: HttpRequest, load: ContextLoader): Promise<HttpReply> {
  const ctx = await load(req, parseUrlEncodedSafe(req.query)?.get('authRequest'));
  if (ctx === undefined) return unknownRequest(req);
  return isRefusal(ctx) ? ctx : renderStep(ctx);
}

async function submitLogin(req: HttpRequest, load: ContextLoader): Promise<HttpReply> {
  const form = parseFormSafe(req);
  const ctx = form === undefined ? undefined : await load(req, form.get('authRequest'));
  if (form === undefined || ctx === undefined) return unknownRequest(req);
  if (isRefusal(ctx)) return ctx;
  if (!isCsrfValid(ctx.stored, form.get('csrf'))) return { ...(await renderStep(ctx, 'csrfInvalid')), status: 403 };
  // Steps the login policy turns off (registration, password, password reset) are refused (403).
  const refused = await refusedByPolicy(ctx, form.get('action'));
  if (refused !== undefined) return refused;
  switch (form.get('action')) {
    case 'loginname':
      return submitLoginName(ctx, form);
    case 'password':
      return submitLimited(ctx, form, submitPassword);
    case 'otp':
      return submitLimited(ctx, form, submitSecondFactor);
    case 'otp.method':
      return submitLimited(ctx, form, selectSecondFactor);
    case 'otp.resend':
      return submitLimited(ctx, form, resendSecondFactorCode);
    case 'mfa.enrol':
      return submitLimited(ctx, form, submitEnrolment);
    case 'mfa.enrol.choose':
      return submitLimited(ctx, form, chooseEnrolment);
    case 'passkey.start':
      return requestPasskeyLogin(ctx);
    case 'passkey':
      return submitLimited(ctx, form, submitPasskey);
    case 'reset.request':
      return submitLimited(ctx, form, requestPasswordResetStep);
    case 'reset.submit':
      return submitLimited(ctx, form, submitPasswordResetStep);
    case 'verify.submit':
      return submitLimited(ctx, form, submitVerificationStep);
    case 'verify.resend':
      return submitLimited(ctx, form, resendVerificationStep);
    case 'select':
      return selectAccount(ctx, form);
    case 'other':
      return useOtherAccount(ctx);
    case 'register':
      return requestRegistration(ctx);
    case 'register.submit':
      return submitLimited(ctx, form, submitRegistration, false);
    case 'external.link.proposed':
      return confirmProposedLink(ctx);
    case 'external.link':
      return linkOtherAccount(ctx, form);
    case 'external.create':
      return createExternalAccount(ctx, form);
    default:
      return renderStep(ctx);
  }
}

/**
 * A password or second-factor check, a code sent by SMS or email (choosing that factor, "Send a
 * new code"), a second factor's enrolment step (its form, choosing another option, which may
 * send a code), a password reset request and a reset code check each count against
 * the client's IP address and against the account it is for (TESSERA_RATE_LIMIT_PASSWORD_IP /
 * _LOGIN_NAME); past either the page says to wait (429). A registration (it hashes a password and
 * may mail a verification code) counts against the IP address only (`perAccount` false): there is
 * no account yet, and one bucket for every registration of an instance would let anyone block them.
 */
async function submitLimited(ctx: LoginContext, form: FormParams, submit: (ctx: LoginContext, form: FormParams) => Promise<HttpReply>, perAccount = true): Promise<HttpReply> {
  const limits = ctx.deps.limits;
  try {
    await limits.consume(ctx.instanceId, 'passwordIp', ctx.req.remoteAddress);
    if (perAccount) await limits.consume(ctx.instanceId, 'passwordLoginName', `${ctx.instanceId}\u0000${accountKey(ctx)}`);
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== 'resource_exhausted') throw error;
    const page = await renderStep(ctx, 'tooManyRequests');
    return { ...page, status: 429, headers: { ...page.headers, 'retry-after': String(error.retryAfterSeconds ?? 60) } };
  }
  return submit(ctx, form);
}

/**
 * The account a password check is for: the user, or for a login name that found none (hidden
 * unknown users, steps.ts) the name itself, so unknown names do not share one bucket.
 */
function accountKey(ctx: LoginContext): string {
  const { userId, loginName } = ctx.stored.machine.context;
  // A passwordless passkey names its user only in the signed answer: counted per request then.
  if (ctx.stored.machine.value === 'awaitingPasskey') return `request:${ctx.stored.id}`;
  return userId !== undefined && userId !== '' ? `user:${userId}` : `name:${(loginName ?? '').toLowerCase()}`;
}

function parseUrlEncodedSafe(text: string): FormParams | undefined {
  try {
    return parseUrlEncoded(text);
  } catch (error) {
    if (error instanceof OAuthError) return undefined;
    throw error;
  }
}

function parseFormSafe(req: HttpRequest): FormParams | undefined {
  try {
    return parseForm(req);
  } catch (error) {
    if (error instanceof OAuthError) return undefined;
    throw error;
  }
}
