/** The OIDC / OAuth routes a node serves (one module per endpoint; this only lists them). */
import type { TenantDirectory } from '../api/tenant.js';
import type { Config } from '../config/schema.js';
import type { Signer } from '../crypto/signer.js';
import type { Route } from '../http/router.js';
import { discoveryRoute } from './discovery.js';
import { keysRoute } from './keys.js';
import { allSupportedLanguages, type UiLocalesResolver } from './shared/ui-locales.js';

export interface OidcRouteDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly signer: Signer;
  /** The instance's `ui_locales_supported` (default: every supported language). */
  readonly uiLocales?: UiLocalesResolver;
}

export function oidcRoutes(deps: OidcRouteDeps): Route[] {
  const uiLocales = deps.uiLocales ?? allSupportedLanguages;
  return [discoveryRoute({ config: deps.config, tenants: deps.tenants, uiLocales }), keysRoute(deps)];
}
