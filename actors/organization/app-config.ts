/**
 * Business rules of an OIDC application's configuration, checked on the whole configuration
 * after every create and patch (a patch of dev mode alone can make a redirect URI invalid):
 * - redirect and post-logout URIs use https; http and custom schemes only for native apps, http
 *   for loopback hosts, anything in dev mode (OAuth 2.0 Security BCP §4.1.1, RFC 8252 §7);
 * - auth method NONE (public client, PKCE required at the authorization endpoint) only for
 *   user-agent and native apps;
 * - response types fit the grant types: CODE ↔ AUTHORIZATION_CODE, ID_TOKEN(_TOKEN) ↔ IMPLICIT;
 * - clock skew within 0..5 s.
 * Shapes (absolute URI, no fragment, origins) are checked at the edge.
 */
import { validationFailed, type ErrorCode, type FieldViolation } from '../kernel/errors.js';
import type { OidcConfig } from './application.js';

export const MAX_CLOCK_SKEW_MS = 5000;

interface Violation extends FieldViolation {
  readonly code: ErrorCode;
}

/** Throws `invalid_argument` naming every offending field (`<prefix>.redirectUris[0]`, ...). */
export function assertValidOidcConfig(config: OidcConfig, prefix: string): void {
  const violations = [
    ...uriViolations(config, config.redirectUris, `${prefix}.redirectUris`),
    ...uriViolations(config, config.postLogoutRedirectUris, `${prefix}.postLogoutRedirectUris`),
    ...authMethodViolations(config, prefix),
    ...flowViolations(config, prefix),
  ];
  if (config.clockSkewMs < 0 || config.clockSkewMs > MAX_CLOCK_SKEW_MS) {
    violations.push({ code: 'app.clock_skew_out_of_range', field: `${prefix}.clockSkew`, description: 'must be between 0s and 5s' });
  }
  const first = violations[0];
  if (first !== undefined) throw validationFailed(violations.map(({ field, description }) => ({ field, description })), first.code);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when a redirect URI is allowed for the app (the URI is already known to be absolute). */
export function isAllowedRedirectUri(config: Pick<OidcConfig, 'appType' | 'devMode'>, uri: string): boolean {
  if (config.devMode || config.appType === 'native') return true;
  const url = parseUrl(uri);
  if (url === undefined) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith('.localhost'));
}

function parseUrl(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

function uriViolations(config: OidcConfig, uris: readonly string[], field: string): Violation[] {
  const violations: Violation[] = [];
  uris.forEach((uri, i) => {
    if (!isAllowedRedirectUri(config, uri)) {
      violations.push({
        code: 'app.redirect_uri_insecure',
        field: `${field}[${i}]`,
        description: 'must use https (http only for native apps, localhost or dev mode)',
      });
    }
  });
  return violations;
}

function authMethodViolations(config: OidcConfig, prefix: string): Violation[] {
  if (config.authMethod !== 'none' || config.appType !== 'web') return [];
  return [
    {
      code: 'app.auth_method_not_allowed',
      field: `${prefix}.authMethod`,
      description: 'NONE (public client with PKCE) is only allowed for user-agent and native apps',
    },
  ];
}

function flowViolations(config: OidcConfig, prefix: string): Violation[] {
  const violations: Violation[] = [];
  const responses = new Set(config.responseTypes);
  const grants = new Set(config.grantTypes);
  const mismatch = (field: string, description: string) =>
    violations.push({ code: 'app.response_grant_mismatch', field: `${prefix}.${field}`, description });
  if (responses.has('code') && !grants.has('authorization_code')) mismatch('grantTypes', 'response type CODE needs grant type AUTHORIZATION_CODE');
  if ((responses.has('id_token') || responses.has('id_token_token')) && !grants.has('implicit')) {
    mismatch('grantTypes', 'response types ID_TOKEN and ID_TOKEN_TOKEN need grant type IMPLICIT');
  }
  if (grants.has('authorization_code') && !responses.has('code')) mismatch('responseTypes', 'grant type AUTHORIZATION_CODE needs response type CODE');
  if (grants.has('implicit') && !responses.has('id_token') && !responses.has('id_token_token')) {
    mismatch('responseTypes', 'grant type IMPLICIT needs response type ID_TOKEN or ID_TOKEN_TOKEN');
  }
  return violations;
}
