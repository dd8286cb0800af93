/** The per-request view of a pending auth request that every login step works with. */
import { timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '../http/types.js';
import type { AuthFlowDeps } from '../oidc/shared/auth-flow-deps.js';
import type { StoredAuthRequest } from '../oidc/shared/auth-requests.js';
import { chooseLanguage, createTranslator } from '../i18n/index.js';
import type { FormContext } from './pages.js';

export interface LoginContext {
  readonly deps: AuthFlowDeps;
  readonly instanceId: string;
  readonly req: HttpRequest;
  readonly stored: StoredAuthRequest;
  readonly form: FormContext;
}

/** `languages`: the instance's offered languages (its restricted languages, or all supported). */
export function createLoginContext(
  deps: AuthFlowDeps,
  instanceId: string,
  req: HttpRequest,
  stored: StoredAuthRequest,
  languages: readonly string[],
): LoginContext {
  const tr = createTranslator(chooseLanguage(stored.request.uiLocales, req.headers['accept-language'], languages));
  return { deps, instanceId, req, stored, form: { authRequestId: stored.id, csrf: stored.csrf, redirectUri: stored.request.redirectUri, tr } };
}

/** Synchronizer-token check of a posted form (OWASP CSRF: the token is bound to the auth request). */
export function isCsrfValid(stored: StoredAuthRequest, posted: string | undefined): boolean {
  if (posted === undefined) return false;
  const expected = Buffer.from(stored.csrf);
  const actual = Buffer.from(posted);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
