/** The per-request view of a pending auth request that every login step works with. */
import { timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '../http/types.js';
import type { AuthFlowDeps } from '../oidc/shared/auth-flow-deps.js';
import type { StoredAuthRequest } from '../oidc/shared/auth-requests.js';
import type { PageLanguages } from '../oidc/shared/ui-locales.js';
import { chooseLanguage, createTranslator } from '../i18n/index.js';
import { orgKind, type ActorSystem } from '../../actors/index.js';
import { findAppByClientId } from '../query/app-clients.js';
import { loginOrgOf } from './login-org.js';
import type { FormContext, LoginAudience } from './pages.js';

export interface LoginContext {
  readonly deps: AuthFlowDeps;
  readonly instanceId: string;
  readonly req: HttpRequest;
  readonly stored: StoredAuthRequest;
  readonly form: FormContext;
}

/** `languages`: the instance's offered languages (its restricted languages, or all supported, with a catalog) and its default language. */
export function createLoginContext(
  deps: AuthFlowDeps,
  instanceId: string,
  req: HttpRequest,
  stored: StoredAuthRequest,
  languages: PageLanguages,
  audience?: LoginAudience,
): LoginContext {
  const tr = createTranslator(chooseLanguage(stored.request.uiLocales, req.headers['accept-language'], languages.offered, languages.defaultLanguage));
  const form = { authRequestId: stored.id, csrf: stored.csrf, redirectUri: stored.request.redirectUri, tr, ...(audience === undefined ? {} : { audience }) };
  return { deps, instanceId, req, stored, form };
}

/**
 * The application's name and the organization's: the one an org scope restricts the login to,
 * else the application's own. Undefined when the client is gone (the step refuses anyway).
 */
export async function loginAudienceOf(actors: ActorSystem, instanceId: string, stored: StoredAuthRequest): Promise<LoginAudience | undefined> {
  const client = await findAppByClientId(actors, instanceId, stored.request.clientId);
  if (client === undefined) return undefined;
  const loginOrg = await loginOrgOf(actors, instanceId, stored.request.scopes);
  const orgId = loginOrg.restricted ? loginOrg.orgId : client.app.state.orgId;
  const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, orgKind, orgId);
  return { app: client.app.state.name, org: org?.state.name ?? '' };
}

/** Synchronizer-token check of a posted form (OWASP CSRF: the token is bound to the auth request). */
export function isCsrfValid(stored: StoredAuthRequest, posted: string | undefined): boolean {
  if (posted === undefined) return false;
  const expected = Buffer.from(stored.csrf);
  const actual = Buffer.from(posted);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
