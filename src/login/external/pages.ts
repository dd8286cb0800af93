/**
 * Pages of the external login: the "Sign in with …" links under the login name form, and the
 * prompt after the provider identified a user no account is linked to yet (link the proposed
 * account, link another account with its password, create an account). The start is a link,
 * not a form: a form submission redirected to the provider would need the provider's origin in
 * the page's CSP form-action (CSP3 §6.3.1.1); the link still carries the CSRF token.
 */
import type { HttpReply } from '../../http/types.js';
import { escapeHtml } from '../../oidc/shared/authorization-response.js';
import type { MessageKey } from '../../i18n/index.js';
import { errorLine, field, form, page, type FormContext } from '../pages.js';

export const EXTERNAL_START_PATH = '/ui/login/external/start';
export const EXTERNAL_CALLBACK_PATH = '/ui/login/external/callback';

export interface IdpChoice {
  readonly id: string;
  readonly name: string;
}

/** What the account creation form shows (prefilled from the provider's claims). */
export interface ExternalCreationValues {
  readonly username: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
}

export interface ExternalPrompt {
  /** The account auto linking proposes (its login name), if any. */
  readonly proposed?: string;
  readonly manualLinking: boolean;
  readonly creation?: ExternalCreationValues;
  readonly error?: MessageKey;
}

export function startUrl(ctx: FormContext, idpId: string): string {
  const query = new URLSearchParams({ authRequest: ctx.authRequestId, idp: idpId, csrf: ctx.csrf });
  return `${EXTERNAL_START_PATH}?${query.toString()}`;
}

/** The IDP links of the login name page ('' when there are none). */
export function renderIdpButtons(ctx: FormContext, idps: readonly IdpChoice[]): string {
  if (idps.length === 0) return '';
  const links = idps
    .map((idp) => `<li><a class="idp" data-idp="${escapeHtml(idp.id)}" href="${escapeHtml(startUrl(ctx, idp.id))}">${escapeHtml(`${ctx.tr.t('signInWith')} ${idp.name}`)}</a></li>`)
    .join('');
  return `<section><p>${escapeHtml(ctx.tr.t('externalIntro'))}</p><ul>${links}</ul></section>`;
}

export function renderExternalPrompt(ctx: FormContext, prompt: ExternalPrompt): HttpReply {
  const t = (key: MessageKey): string => escapeHtml(ctx.tr.t(key));
  let body = errorLine(ctx, prompt.error);
  if (prompt.proposed !== undefined) {
    body += `<p>${t('externalLinkProposed')}</p><p><strong class="proposed">${escapeHtml(prompt.proposed)}</strong></p>`;
    body += form(ctx, 'external.link.proposed', '', ctx.tr.t('externalLinkConfirm'));
  }
  if (prompt.manualLinking) {
    const fields =
      field(ctx, 'loginName', 'loginNameLabel', 'autocomplete="username" maxlength="1024"') +
      field(ctx, 'password', 'passwordLabel', 'type="password" autocomplete="current-password" maxlength="1024"');
    body += `<p>${t('externalLinkOther')}</p>${form(ctx, 'external.link', fields, ctx.tr.t('externalLinkSubmit'))}`;
  }
  if (prompt.creation !== undefined) {
    const v = prompt.creation;
    const fields =
      field(ctx, 'username', 'usernameLabel', 'autocomplete="username" maxlength="200"', v.username) +
      field(ctx, 'givenName', 'givenNameLabel', 'autocomplete="given-name" maxlength="200"', v.givenName) +
      field(ctx, 'familyName', 'familyNameLabel', 'autocomplete="family-name" maxlength="200"', v.familyName) +
      field(ctx, 'email', 'emailLabel', 'type="email" autocomplete="email" maxlength="200"', v.email);
    body += `<p>${t('externalCreateIntro')}</p>${form(ctx, 'external.create', fields, ctx.tr.t('externalCreateSubmit'))}`;
  }
  return page(ctx, ctx.tr.t('externalLinkTitle'), body, prompt.error === undefined ? 200 : 400);
}

/**
 * The callback's way on to the client: a page that navigates with a `Refresh` header (and a
 * link as fallback) instead of a redirect. The provider's login form redirected the browser
 * here, and browsers apply that form's CSP form-action to every redirect of the chain (a strict
 * provider — Tessera's own login UI among them — allows only its client's origin, i.e. this
 * callback); a refresh is a new navigation outside that chain.
 */
export function renderContinuePage(ctx: FormContext, location: string): HttpReply {
  const reply = page(ctx, ctx.tr.t('title'), `<p><a id="continue" href="${escapeHtml(location)}">${escapeHtml(ctx.tr.t('externalContinue'))}</a></p>`);
  return { ...reply, headers: { ...reply.headers, refresh: `0;url=${location}` } };
}
