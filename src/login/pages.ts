/**
 * Server-rendered login pages, usable without JavaScript: every form posts to the login
 * endpoint with the auth request id and its CSRF token. Text comes from the i18n catalogs and
 * every dynamic value is escaped. A login page may be redirected to the client after a POST,
 * so its CSP form-action allows the redirect URI's origin besides 'self' (CSP3 §6.3.1.1).
 */
import { html } from '../http/reply.js';
import { escapeHtml, formActionSource } from '../oidc/shared/authorization-response.js';
import { LOGIN_PATH } from '../oidc/shared/auth-request-flow.js';
import { brandingSources, brandingStyle, displayLoginName, logoHtml, watermarkHtml } from './appearance.js';
import { AppError } from '../../actors/index.js';
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

/**
 * The page frame: the branding of the login context (CSS custom properties, logo, font,
 * watermark; issue 6) from `tr.branding`, the built-in look without it. No script: every
 * page works without JavaScript.
 */
function layout(tr: Translator, title: string, body: string): string {
  return (
    `<!doctype html><html lang="${escapeHtml(tr.lang)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
    `<style>${brandingStyle(tr.branding)}</style></head><body><main>${logoHtml(tr.branding)}<h1>${escapeHtml(title)}</h1>${body}</main>` +
    `${watermarkHtml(tr.branding)}</body></html>`
  );
}

function loginCsp(redirectUri: string, tr: Translator): string {
  // The branding's logo and font may come from their own origins (validated https URLs).
  const sources = brandingSources(tr.branding);
  return (
    `default-src 'self'; frame-ancestors 'none'; form-action 'self' ${formActionSource(redirectUri)}; ` +
    `base-uri 'none'; object-src 'none'; style-src 'self' 'unsafe-inline'; ` +
    `img-src ${["'self'", ...sources.img].join(' ')}; font-src ${["'self'", ...sources.font].join(' ')}`
  );
}

export function page(ctx: FormContext, title: string, body: string, status = 200): HttpReply {
  return html(status, layout(ctx.tr, title, body), { 'content-security-policy': loginCsp(ctx.redirectUri, ctx.tr), 'cache-control': 'no-store' });
}

export function form(ctx: FormContext, action: string, fields: string, submit: string): string {
  return (
    `<form method="post" action="${LOGIN_PATH}">` +
    `<input type="hidden" name="authRequest" value="${escapeHtml(ctx.authRequestId)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(ctx.csrf)}">` +
    `<input type="hidden" name="action" value="${action}">${fields}` +
    `<button type="submit" name="submit" value="${action}">${escapeHtml(submit)}</button></form>`
  );
}

export function errorLine(ctx: FormContext, error: MessageKey | undefined): string {
  return error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(ctx.tr.t(error))}</p>`;
}

/** `idpButtons`: the external login links (external/pages.ts), already escaped. */
export function renderLoginNamePage(ctx: FormContext, options: { loginHint?: string; error?: MessageKey; idpButtons?: string } = {}): HttpReply {
  const value = options.loginHint === undefined ? '' : ` value="${escapeHtml(options.loginHint)}"`;
  const fields =
    `<label for="loginName">${escapeHtml(ctx.tr.t('loginNameLabel'))}</label>` +
    `<input id="loginName" name="loginName" autocomplete="username" required autofocus${value}>`;
  // Registration is always offered (the instance has no setting to turn it off yet).
  const body =
    `<p>${escapeHtml(ctx.tr.t('loginNameIntro'))}</p>${errorLine(ctx, options.error)}${form(ctx, 'loginname', fields, ctx.tr.t('next'))}` +
    form(ctx, 'register', '', ctx.tr.t('registerLink')) +
    (options.idpButtons ?? '');
  return page(ctx, ctx.tr.t('title'), body, options.error === undefined ? 200 : 400);
}

/** `canReset`: the instance can send mail, so "Forgot password?" is offered. */
export function renderPasswordPage(ctx: FormContext, options: { loginName: string; error?: MessageKey; canReset?: boolean }): HttpReply {
  const fields =
    `<input type="hidden" name="username" autocomplete="username" value="${escapeHtml(options.loginName)}">` +
    `<label for="password">${escapeHtml(ctx.tr.t('passwordLabel'))}</label>` +
    `<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>`;
  const body =
    `<p>${escapeHtml(displayLoginName(ctx.tr, options.loginName))}</p><p>${escapeHtml(ctx.tr.t('passwordIntro'))}</p>` +
    `${errorLine(ctx, options.error)}${form(ctx, 'password', fields, ctx.tr.t('signIn'))}` +
    (options.canReset === true ? form(ctx, 'reset.request', '', ctx.tr.t('forgotPassword')) : '');
  return page(ctx, ctx.tr.t('title'), body, options.error === undefined ? 200 : 400);
}

/** The second factor: a TOTP code after the password (a numeric one-time-code field, no script). */
export function renderOtpPage(ctx: FormContext, options: { loginName: string; error?: MessageKey }): HttpReply {
  const fields =
    `<label for="code">${escapeHtml(ctx.tr.t('otpLabel'))}</label>` +
    `<input id="code" name="code" autocomplete="one-time-code" maxlength="32" required autofocus>`;
  const body =
    `<p>${escapeHtml(displayLoginName(ctx.tr, options.loginName))}</p><p>${escapeHtml(ctx.tr.t('otpIntro'))}</p>` +
    `${errorLine(ctx, options.error)}${form(ctx, 'otp', fields, ctx.tr.t('otpSubmit'))}${form(ctx, 'other', '', ctx.tr.t('otherAccount'))}`;
  return page(ctx, ctx.tr.t('title'), body, options.error === undefined ? 200 : 400);
}

/**
 * The password reset page: the code from the mail, the new password twice, the password
 * rules of the instance (`rules`, shown as a list), and a way to send a new code.
 */
export function renderPasswordResetPage(ctx: FormContext, options: { loginName: string; rules: readonly string[]; error?: MessageKey; status?: number }): HttpReply {
  const fields =
    `<input type="hidden" name="username" autocomplete="username" value="${escapeHtml(options.loginName)}">` +
    field(ctx, 'code', 'resetCodeLabel', 'autocomplete="one-time-code" inputmode="numeric" maxlength="64" autofocus') +
    field(ctx, 'password', 'newPasswordLabel', 'type="password" autocomplete="new-password" maxlength="256"') +
    field(ctx, 'passwordRepeat', 'passwordRepeatLabel', 'type="password" autocomplete="new-password" maxlength="256"');
  const rules = options.rules.length === 0 ? '' : `<p>${escapeHtml(ctx.tr.t('resetRules'))}:</p><ul class="rules">${options.rules.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>`;
  const body =
    `<p>${escapeHtml(displayLoginName(ctx.tr, options.loginName))}</p><p>${escapeHtml(ctx.tr.t('resetIntro'))}</p>${rules}` +
    `${errorLine(ctx, options.error)}${form(ctx, 'reset.submit', fields, ctx.tr.t('resetSubmit'))}${form(ctx, 'reset.request', '', ctx.tr.t('resetResend'))}`;
  return page(ctx, ctx.tr.t('resetTitle'), body, options.status ?? (options.error === undefined ? 200 : 400));
}

export function renderSelectAccountPage(ctx: FormContext, accounts: readonly AccountChoice[]): HttpReply {
  const choices = accounts
    .map((a) => form(ctx, 'select', `<input type="hidden" name="sessionId" value="${escapeHtml(a.sessionId)}">`, displayLoginName(ctx.tr, a.loginName)))
    .join('');
  const body = `<p>${escapeHtml(ctx.tr.t('selectAccountIntro'))}</p>${choices}${form(ctx, 'other', '', ctx.tr.t('otherAccount'))}`;
  return page(ctx, ctx.tr.t('selectAccountTitle'), body);
}

export function field(ctx: FormContext, name: string, label: MessageKey, attributes: string, value?: string): string {
  const prefilled = value === undefined ? '' : ` value="${escapeHtml(value)}"`;
  return `<label for="${name}">${escapeHtml(ctx.tr.t(label))}</label><input id="${name}" name="${name}" ${attributes} required${prefilled}>`;
}

export function renderRegisterPage(ctx: FormContext, options: { values?: RegistrationValues; error?: MessageKey } = {}): HttpReply {
  const v = options.values ?? {};
  const fields =
    field(ctx, 'username', 'usernameLabel', 'autocomplete="username" maxlength="200" autofocus', v.username) +
    field(ctx, 'givenName', 'givenNameLabel', 'autocomplete="given-name" maxlength="200"', v.givenName) +
    field(ctx, 'familyName', 'familyNameLabel', 'autocomplete="family-name" maxlength="200"', v.familyName) +
    field(ctx, 'email', 'emailLabel', 'type="email" autocomplete="email" maxlength="200"', v.email) +
    field(ctx, 'password', 'passwordLabel', 'type="password" autocomplete="new-password" maxlength="256"') +
    field(ctx, 'passwordRepeat', 'passwordRepeatLabel', 'type="password" autocomplete="new-password" maxlength="256"');
  const body =
    `<p>${escapeHtml(ctx.tr.t('registerIntro'))}</p>${errorLine(ctx, options.error)}` +
    `${form(ctx, 'register.submit', fields, ctx.tr.t('registerSubmit'))}${form(ctx, 'other', '', ctx.tr.t('haveAccount'))}`;
  return page(ctx, ctx.tr.t('registerTitle'), body, options.error === undefined ? 200 : 400);
}

/** An error page on the server (unknown auth request, client or redirect URI in doubt). */
export function renderErrorPage(tr: Translator, message: MessageKey, status = 400): HttpReply {
  const body = `<p class="error" role="alert">${escapeHtml(tr.t(message))}</p>`;
  return html(status, layout(tr, tr.t('errorTitle'), body), { 'cache-control': 'no-store' });
}

/**
 * The sign-out confirmation (end_session without id_token_hint): a form posting the logout
 * parameters back with the confirmation's CSRF token. `formActionOrigin`: the origin of the
 * post_logout_redirect_uri the POST may be redirected to (CSP form-action covers redirects).
 */
export function renderLogoutConfirmPage(tr: Translator, options: { action: string; csrf: string; params: Readonly<Record<string, string>>; formActionOrigin?: string }): HttpReply {
  const hidden = Object.entries({ ...options.params, csrf: options.csrf })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const body =
    `<p>${escapeHtml(tr.t('logoutConfirmIntro'))}</p><form method="post" action="${escapeHtml(options.action)}">${hidden}` +
    `<button type="submit">${escapeHtml(tr.t('logoutConfirm'))}</button></form>`;
  const formAction = ["'self'", ...(options.formActionOrigin === undefined ? [] : [options.formActionOrigin])].join(' ');
  const csp = `default-src 'self'; frame-ancestors 'none'; form-action ${formAction}; base-uri 'none'; object-src 'none'; style-src 'self' 'unsafe-inline'`;
  return html(200, layout(tr, tr.t('logoutConfirmTitle'), body), { 'content-security-policy': csp, 'cache-control': 'no-store' });
}

/** A page with a title and one message (signed out, ...). */
export function renderMessagePage(tr: Translator, title: MessageKey, message: MessageKey): HttpReply {
  const body = `<p role="status">${escapeHtml(tr.t(message))}</p>`;
  return html(200, layout(tr, tr.t(title), body), { 'cache-control': 'no-store' });
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
