/**
 * Cookies of the browser-facing pages, read from the Cookie header and written as Set-Cookie
 * values with the `cookie` package (RFC 6265 parsing and serialization; no hand-split headers).
 * Every cookie Tessera sets is HttpOnly and SameSite=Lax, Secure unless the external URL is plain
 * http (TESSERA_EXTERNAL_SECURE=false, e.g. http://localhost).
 */
import { parse, serialize } from 'cookie';

export interface CookieScope {
  /** The path the browser sends the cookie to. */
  readonly path: string;
  readonly secure: boolean;
}

/** The value of cookie `name` in a Cookie header (the first of that name), undefined without one. */
export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (cookieHeader === undefined || cookieHeader === '') return undefined;
  return parse(cookieHeader)[name];
}

/** The Set-Cookie value storing `value` under `name` for `maxAgeSeconds`. */
export function setCookie(name: string, value: string, maxAgeSeconds: number, scope: CookieScope): string {
  return serialize(name, value, { maxAge: maxAgeSeconds, path: scope.path, httpOnly: true, secure: scope.secure, sameSite: 'lax' });
}

/** The Set-Cookie value removing cookie `name` (empty value, Max-Age=0). */
export function clearCookie(name: string, scope: CookieScope): string {
  return setCookie(name, '', 0, scope);
}
