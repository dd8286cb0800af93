/**
 * Server-rendered login pages, usable without JavaScript: every form posts to the login
 * endpoint with the auth request id and its CSRF token. Each page is a template in
 * ./templates (Eta, auto-escaping; docs/login-ui.md "Templates") inside the layout template;
 * text comes from the i18n catalogs. A login page may be redirected to the client after a POST,
 * so its CSP form-action allows the redirect URI's origin besides 'self' (CSP3 §6.3.1.1).
 */
import { html } from '../http/reply.js';
import { formActionSource } from '../oidc/shared/authorization-response.js';
import { LOGIN_PATH } from '../oidc/shared/auth-request-flow.js';
import { brandingSources, brandingStyle, displayLoginName, logoOf } from './appearance.js';
import { LOGIN_TEMPLATES } from './views.js';
import { AppError, BRANDING_DEFAULTS } from '../../actors/index.js';
import type { RateLimits } from '../http/rate-limits.js';
import type { TenantDirectory } from '../query/tenant.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { chooseLanguage, createTranslator, type MessageKey, type Translator } from '../i18n/index.js';

export interface FormContext {
  readonly authRequestId: string;
  readonly csrf: string;
  readonly redirectUri: string;
  readonly tr: Translator;
  /** What the person is signing in to, named under the title of every step (login-context.ts). */
  readonly audience?: LoginAudience;
}

/** The application of the auth request and the organization the login is for. */
export interface LoginAudience {
  readonly app: string;
  /** The organization an org scope restricts the login to, else the application's; '' when unknown. */
  readonly org: string;
}

/** What a re-rendered registration form keeps (never the passwords). */
export interface RegistrationValues {
  readonly username?: string;
  readonly givenName?: string;
  readonly familyName?: string;
  readonly email?: string;
}

export interface AccountChoice {
  readonly sessionId: string;
  readonly loginName: string;
}

/** An external login link of the login name page (external/pages.ts builds them). */
export interface IdpLink {
  readonly id: string;
  /** The link's text ("Sign in with <provider>"). */
  readonly label: string;
  readonly href: string;
}

/**
 * The layout's data: the language, the title, and the branding of the login context (CSS
 * custom properties, logo, font, watermark; issue 6) from `tr.branding`, the built-in look
 * without it. No script: every page works without JavaScript.
 */
function frameOf(tr: Translator, title: string, audience?: LoginAudience) {
  const branding = tr.branding ?? BRANDING_DEFAULTS;
  // The style is written raw into <style>: built from validated colors and a CSS-escaped font
  // URL; a '<' could still never close the element.
  const style = brandingStyle(branding).replace(/</g, '\\3c ');
  return { lang: tr.lang, title, style, logo: logoOf(branding), watermark: !branding.disableWatermark, audience };
}

/** Every template's data besides its own: the frame, the texts, and what a form posts back. */
function templateData(tr: Translator, title: string, data: object, form?: FormContext): object {
  const t = (key: MessageKey): string => tr.t(key);
  const posting = form === undefined ? {} : { authRequest: form.authRequestId, csrf: form.csrf, loginPath: LOGIN_PATH };
  return { ...data, ...posting, t, frame: frameOf(tr, title, form?.audience) };
}

/** `script`: the page loads the login UI's own passkey script (passkey.ts); every other page runs none. */
function loginCsp(redirectUri: string, tr: Translator, script = false): string {
  // The branding's logo and font may come from their own origins (validated https URLs).
  const sources = brandingSources(tr.branding);
  return (
    `default-src 'self'; script-src ${script ? "'self'" : "'none'"}; frame-ancestors 'none'; form-action 'self' ${formActionSource(redirectUri)}; ` +
    `base-uri 'none'; object-src 'none'; style-src 'self' 'unsafe-inline'; ` +
    `img-src ${["'self'", ...sources.img].join(' ')}; font-src ${["'self'", ...sources.font].join(' ')}`
  );
}

/**
 * A login step page: template `template` (src/login/templates/<template>.eta) with `data` and
 * the login request's form context (`it.authRequest`, `it.csrf`, `it.loginPath` for the `_form`
 * partial), titled `title`, with the login CSP. `data.errorText` is the usual refusal line.
 */
export function renderLoginPage(ctx: FormContext, template: string, title: string, data: object, status = 200, options: { readonly script?: boolean } = {}): HttpReply {
  const text = LOGIN_TEMPLATES.render(template, templateData(ctx.tr, title, data, ctx));
  return html(status, text, { 'content-security-policy': loginCsp(ctx.redirectUri, ctx.tr, options.script === true), 'cache-control': 'no-store' });
}

/** The text of a refusal (`errorText` of the templates), undefined without one. */
export function errorText(ctx: FormContext, error: MessageKey | undefined): string | undefined {
  return error === undefined ? undefined : ctx.tr.t(error);
}

function stepStatus(error: MessageKey | undefined): number {
  return error === undefined ? 200 : 400;
}

/** `idps`: the external login links (external/pages.ts `idpLinks`); `canRegister`: the login policy allows self-registration (default true). */
export function renderLoginNamePage(ctx: FormContext, options: { loginHint?: string; error?: MessageKey; idps?: readonly IdpLink[]; canRegister?: boolean; canPasskey?: boolean } = {}): HttpReply {
  const data = { loginHint: options.loginHint, errorText: errorText(ctx, options.error), idps: options.idps ?? [], canRegister: options.canRegister !== false, canPasskey: options.canPasskey !== false };
  return renderLoginPage(ctx, 'login-name', ctx.tr.t('title'), data, stepStatus(options.error));
}

/** `canReset`: the instance can send mail, so "Forgot password?" is offered. */
export function renderPasswordPage(ctx: FormContext, options: { loginName: string; error?: MessageKey; canReset?: boolean }): HttpReply {
  const data = { loginName: options.loginName, displayName: displayLoginName(ctx.tr, options.loginName), errorText: errorText(ctx, options.error), canReset: options.canReset === true };
  return renderLoginPage(ctx, 'password', ctx.tr.t('title'), data, stepStatus(options.error));
}

/**
 * The password reset page: the code from the mail, the new password twice, the password
 * rules of the instance (`rules`, shown as a list), and a way to send a new code.
 */
export function renderPasswordResetPage(ctx: FormContext, options: { loginName: string; rules: readonly string[]; error?: MessageKey; status?: number }): HttpReply {
  const data = { loginName: options.loginName, displayName: displayLoginName(ctx.tr, options.loginName), rules: options.rules, errorText: errorText(ctx, options.error) };
  return renderLoginPage(ctx, 'password-reset', ctx.tr.t('resetTitle'), data, options.status ?? stepStatus(options.error));
}

export function renderSelectAccountPage(ctx: FormContext, accounts: readonly AccountChoice[]): HttpReply {
  const data = { accounts: accounts.map((a) => ({ sessionId: a.sessionId, displayName: displayLoginName(ctx.tr, a.loginName) })) };
  return renderLoginPage(ctx, 'select-account', ctx.tr.t('selectAccountTitle'), data);
}

/** `rules`: the instance's password rules (password-rules.ts), shown above the form. */
export function renderRegisterPage(ctx: FormContext, options: { values?: RegistrationValues; error?: MessageKey; rules?: readonly string[] } = {}): HttpReply {
  const data = { values: options.values ?? {}, rules: options.rules ?? [], errorText: errorText(ctx, options.error) };
  return renderLoginPage(ctx, 'register', ctx.tr.t('registerTitle'), data, stepStatus(options.error));
}

/** An error page on the server (unknown auth request, client or redirect URI in doubt). */
export function renderErrorPage(tr: Translator, message: MessageKey, status = 400): HttpReply {
  return html(status, LOGIN_TEMPLATES.render('error', templateData(tr, tr.t('errorTitle'), { message: tr.t(message) })), { 'cache-control': 'no-store' });
}

/**
 * The sign-out confirmation (end_session without id_token_hint): a form posting the logout
 * parameters back with the confirmation's CSRF token. `formActionOrigin`: the origin of the
 * post_logout_redirect_uri the POST may be redirected to (CSP form-action covers redirects).
 */
export function renderLogoutConfirmPage(tr: Translator, options: { action: string; csrf: string; params: Readonly<Record<string, string>>; formActionOrigin?: string }): HttpReply {
  const hidden = Object.entries({ ...options.params, csrf: options.csrf }).map(([name, value]) => ({ name, value }));
  const text = LOGIN_TEMPLATES.render('logout-confirm', templateData(tr, tr.t('logoutConfirmTitle'), { action: options.action, hidden }));
  const formAction = ["'self'", ...(options.formActionOrigin === undefined ? [] : [options.formActionOrigin])].join(' ');
  const csp = `default-src 'self'; frame-ancestors 'none'; form-action ${formAction}; base-uri 'none'; object-src 'none'; style-src 'self' 'unsafe-inline'`;
  return html(200, text, { 'content-security-policy': csp, 'cache-control': 'no-store' });
}

/** A page with a title and one message (signed out, ...). */
export function renderMessagePage(tr: Translator, title: MessageKey, message: MessageKey): HttpReply {
  return html(200, LOGIN_TEMPLATES.render('message', templateData(tr, tr.t(title), { message: tr.t(message) })), { 'cache-control': 'no-store' });
}

/**
 * The browser pages (authorization endpoint, login UI, end_session) under the per-IP limit of
 * their instance (TESSERA_RATE_LIMIT_LOGIN_PAGES_IP or the instance's own value): past it a
 * page says to wait (429 with Retry-After). A host of no instance counts under the node default.
 */
export function limitedPages(routes: readonly Route[], limits: RateLimits, tenants: Pick<TenantDirectory, 'resolveHost'>): Route[] {
  return routes.map((route) => ({
    ...route,
    handler: async (req) => {
      try {
        const instance = await tenants.resolveHost(req.headers.host ?? '');
        await limits.consume(instance?.id ?? '', 'loginPagesIp', req.remoteAddress);
      } catch (error) {
        if (error instanceof AppError && error.kind === 'resource_exhausted') return tooManyRequestsPage(req, error.retryAfterSeconds ?? 60);
        throw error;
      }
      return route.handler(req);
    },
  }));
}

function tooManyRequestsPage(req: HttpRequest, retryAfterSeconds: number): HttpReply {
  const page = renderErrorPage(createTranslator(chooseLanguage([], req.headers['accept-language'])), 'tooManyRequests', 429);
  return { ...page, headers: { ...page.headers, 'retry-after': String(retryAfterSeconds) } };
}
