/** The OIDC / OAuth routes a node serves (one module per endpoint; this only lists them). */
import type { TenantDirectory } from '../query/tenant.js';
import type { Config } from '../config/schema.js';
import type { Signer } from '../crypto/signer.js';
import type { Route } from '../http/router.js';
import { limitedPages } from '../login/pages.js';
import { loginRoutes } from '../login/routes.js';
import { authorizeRoutes } from './authorize.js';
import { discoveryRoute } from './discovery.js';
import { endSessionRoutes } from './end-session.js';
import { toAuthFlowDeps } from './shared/auth-flow-deps.js';
import { introspectRoute } from './introspect.js';
import { keysRoute } from './keys.js';
import { revokeRoute } from './revoke.js';
import type { OAuthDeps } from './shared/oauth-deps.js';
import { tokenRoute } from './token.js';
import { userinfoRoutes } from './userinfo.js';
import { allSupportedLanguages, type UiLocalesResolver } from './shared/ui-locales.js';

export interface OidcRouteDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly signer: Signer;
  /** The instance's `ui_locales_supported` (default: every supported language). */
  readonly uiLocales?: UiLocalesResolver;
  /** Token, introspection, userinfo and revocation (served when given). */
  readonly oauth?: OAuthDeps;
}

export function oidcRoutes(deps: OidcRouteDeps): Route[] {
  const uiLocales = deps.uiLocales ?? allSupportedLanguages;
  const routes = [discoveryRoute({ config: deps.config, tenants: deps.tenants, uiLocales }), keysRoute(deps)];
  if (deps.oauth !== undefined) routes.push(tokenRoute(deps.oauth), introspectRoute(deps.oauth), revokeRoute(deps.oauth), ...userinfoRoutes(deps.oauth));
  // The authorization endpoint and the login UI share the instance host (cookies); see src/login.
  if (deps.oauth !== undefined) {
    const flow = toAuthFlowDeps(deps.oauth);
    routes.push(...limitedPages([...authorizeRoutes(flow), ...loginRoutes(flow), ...endSessionRoutes(flow)], flow.limits, deps.tenants));
  }
  return routes;
}
