/**
 * Form bodies of the OAuth endpoints (RFC 6749 §3.2, Appendix B): application/x-www-form-urlencoded,
 * every parameter at most once (§3.1: repeated parameters are an invalid_request), empty values
 * treated as absent.
 */
import { OAuthError } from '../../../actors/index.js';
import type { HttpRequest } from '../../http/types.js';

export type FormParams = ReadonlyMap<string, string>;

/** The request's parameters: the form body for POST, the query for GET. */
export function parseForm(req: HttpRequest): FormParams {
  if (req.method === 'GET') return parseUrlEncoded(req.query);
  const given = req.headers['content-type'];
  if (req.body.length > 0 && given !== FORM_TYPE && mediaType(given) !== FORM_TYPE) {
    throw invalidRequest('the request body must be application/x-www-form-urlencoded');
  }
  return parseUrlEncoded(req.body.toString('utf8'));
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The media type of a Content-Type value, lower case, without parameters. */
function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase(); // split always yields one part
}

/** Parameters that may repeat (RFC 8693 §2.1 `audience` / `resource`); their values are joined by a space. */
const REPEATABLE = new Set(['audience', 'resource']);

/** Parses urlencoded text; a repeated name throws invalid_request. */
export function parseUrlEncoded(text: string): FormParams {
  const params = new Map<string, string>();
  let empty = false;
  if (needsUrlSearchParams(text)) {
    for (const [name, value] of new URLSearchParams(text)) empty = addParam(params, name, value) || empty;
  } else {
    // Split directly, as URLSearchParams would for text without `%` or a leading `?` (`+` is a
    // space): a token request's `grant_type=client_credentials&scope=openid+profile` needs no
    // URLSearchParams object and no pair arrays.
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('&', start);
      if (end === -1) end = text.length;
      if (end > start) {
        const equals = text.indexOf('=', start);
        const name = equals === -1 || equals > end ? text.slice(start, end) : text.slice(start, equals);
        const value = equals === -1 || equals > end ? '' : text.slice(equals + 1, end);
        empty = addParam(params, plusAsSpace(name), plusAsSpace(value)) || empty;
      }
      start = end + 1;
    }
  }
  if (empty) for (const [name, value] of params) if (value === '') params.delete(name);
  return params;
}

/** Adds one pair (a repeated name throws invalid_request); true when the value is empty. */
function addParam(params: Map<string, string>, name: string, value: string): boolean {
  const previous = params.get(name);
  if (previous !== undefined && REPEATABLE.has(name)) params.set(name, value === '' ? previous : previous === '' ? value : `${previous} ${value}`);
  else if (previous !== undefined) throw invalidRequest(`the parameter ${safeName(name)} is repeated`);
  else params.set(name, value);
  return value === '';
}

function needsUrlSearchParams(text: string): boolean {
  return text.charCodeAt(0) === 63 /* ? */ || text.includes('%');
}

const PLUS = /\+/g;

function plusAsSpace(text: string): string {
  return text.includes('+') ? text.replace(PLUS, ' ') : text;
}

/** The parameter, or invalid_request when absent. */
export function requireParam(params: FormParams, name: string): string {
  const value = params.get(name);
  if (value === undefined) throw invalidRequest(`the parameter ${name} is required`);
  return value;
}

export function invalidRequest(message: string): OAuthError {
  return new OAuthError('invalid_request', message, { redirectable: false });
}

export function invalidClient(message = 'client authentication failed'): OAuthError {
  return new OAuthError('invalid_client', message, { redirectable: false });
}

/** Parameter names are echoed only when they look like one (never arbitrary input). */
function safeName(name: string): string {
  return /^[a-z_]{1,40}$/.test(name) ? name : 'given';
}
