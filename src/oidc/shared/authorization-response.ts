/**
 * Sends authorization responses and redirectable errors to the client (RFC 6749 §4.1.2,
 * §4.1.2.1; OAuth 2.0 Multiple Response Types §2; Form Post Response Mode §2): `query` adds the
 * parameters to the redirect URI's query, `fragment` to its fragment, `form_post` serves a page
 * that POSTs them. That page runs one inline script allowed by a per-response CSP nonce.
 * Every response, success or error, carries `iss` (RFC 9207 §2): the issuer the request came in
 * under, so a client talking to several servers can tell which one answered (mix-up defence).
 */
import { randomBytes } from 'node:crypto';
import type { OAuthError } from '../../../actors/index.js';
import { html, redirect } from '../../http/reply.js';
import { loadTemplates } from '../../html/templates.js';
import type { HttpReply } from '../../http/types.js';
import type { ResponseMode } from './auth-requests.js';

/** The form_post page (../templates/form-post.eta), compiled once at start. */
const TEMPLATES = loadTemplates(new URL('../templates/', import.meta.url));

export interface ResponseTarget {
  readonly redirectUri: string;
  readonly responseMode: ResponseMode;
  readonly state?: string;
  /** The issuer of the request (discovery's `issuer`), sent as `iss`. */
  readonly issuer: string;
}

/** The origin (or scheme, for custom schemes) a login form may be redirected to (CSP form-action). */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

export function toAuthorizationResponse(target: ResponseTarget, params: Readonly<Record<string, string>>): HttpReply {
  const all: Record<string, string> = { ...params, ...(target.state === undefined ? {} : { state: target.state }), iss: target.issuer };
  if (target.responseMode === 'form_post') return formPost(target.redirectUri, all);
  const url = new URL(target.redirectUri);
  if (target.responseMode === 'fragment') {
    url.hash = new URLSearchParams(all).toString();
  } else {
    for (const [name, value] of Object.entries(all)) url.searchParams.append(name, value);
  }
  return redirect(url.toString(), 303);
}

export function toAuthorizationError(target: ResponseTarget, error: OAuthError): HttpReply {
  return toAuthorizationResponse(target, { error: error.oauthCode, error_description: error.message });
}

function formPost(redirectUri: string, params: Record<string, string>): HttpReply {
  const nonce = randomBytes(16).toString('base64');
  const page = TEMPLATES.render('form-post', { action: redirectUri, params: Object.entries(params).map(([name, value]) => ({ name, value })), nonce });
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${formActionSource(redirectUri)}; frame-ancestors 'none'; base-uri 'none'`;
  return html(200, page, { 'content-security-policy': csp, 'cache-control': 'no-store' });
}
