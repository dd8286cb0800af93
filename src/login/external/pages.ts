/**
 * Pages of the external login: the "Sign in with …" links under the login name form, and the
 * prompt after the provider identified a user no account is linked to yet (link the proposed
 * account, link another account with its password, create an account). The start is a link,
 * not a form: a form submission redirected to the provider would need the provider's origin in
 * the page's CSP form-action (CSP3 §6.3.1.1); the link still carries the CSRF token.
 */
import type { HttpReply } from '../../http/types.js';
import type { MessageKey } from '../../i18n/index.js';
import { errorText, renderLoginPage, type FormContext, type IdpLink } from '../pages.js';

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

/** The IDP links of the login name page (templates/_idp-links.eta). */
export function idpLinks(ctx: FormContext, idps: readonly IdpChoice[]): IdpLink[] {
  return idps.map((idp) => ({ id: idp.id, label: signInWith(ctx, idp.name), href: startUrl(ctx, idp.id) }));
}

/** "Sign in with …": the text's `{name}` replaced by the provider's name, else the name appended (ja, zh put it first). */
function signInWith(ctx: FormContext, name: string): string {
  const text = ctx.tr.t('signInWith');
  return text.includes('{name}') ? text.replace('{name}', () => name) : `${text} ${name}`;
}

/** The prompt after an external login no account is linked to (templates/external-prompt.eta). */
export function renderExternalPrompt(ctx: FormContext, prompt: ExternalPrompt): HttpReply {
  const data = { proposed: prompt.proposed, manualLinking: prompt.manualLinking, creation: prompt.creation, errorText: errorText(ctx, prompt.error) };
  return renderLoginPage(ctx, 'external-prompt', ctx.tr.t('externalLinkTitle'), data, prompt.error === undefined ? 200 : 400);
}

/**
 * The callback's way on to the client: a page that navigates with a `Refresh` header (and a
 * link as fallback) instead of a redirect. The provider's login form redirected the browser
 * here, and browsers apply that form's CSP form-action to every redirect of the chain (a strict
 * provider — Tessera's own login UI among them — allows only its client's origin, i.e. this
 * callback); a refresh is a new navigation outside that chain.
 */
export function renderContinuePage(ctx: FormContext, location: string): HttpReply {
  const reply = renderLoginPage(ctx, 'continue', ctx.tr.t('title'), { location });
  return { ...reply, headers: { ...reply.headers, refresh: `0;url=${location}` } };
}
