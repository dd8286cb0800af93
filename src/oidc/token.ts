/**
 * Token endpoint: `POST /oauth/v2/token` (RFC 6749 §3.2, §5; seed 001 "Token request parameters
 * by grant"): form-urlencoded, each parameter once, the grant chosen by `grant_type`; replies
 * `Cache-Control: no-store`.
 */
import { OAuthError } from '../../actors/index.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { grantAuthorizationCode } from './grants/authorization-code.js';
import { grantClientCredentials } from './grants/client-credentials.js';
import { grantJwtBearer } from './grants/jwt-bearer.js';
import { grantRefreshToken } from './grants/refresh-token.js';
import { grantTokenExchange } from './grants/token-exchange.js';
import { type TokenResponse, tokenResponseJson } from './grants/token-response.js';
import { requireParam } from './shared/form.js';
import { type OAuthDeps, type OAuthRequest, openOAuthRequest } from './shared/oauth-deps.js';
import { noStoreJsonText, withOAuthErrors } from './shared/oauth-reply.js';

export const TOKEN_PATH = '/oauth/v2/token';

type Grant = (deps: OAuthDeps, request: OAuthRequest) => Promise<TokenResponse>;

const GRANTS: ReadonlyMap<string, Grant> = new Map<string, Grant>([
  ['authorization_code', grantAuthorizationCode],
  ['client_credentials', grantClientCredentials],
  ['urn:ietf:params:oauth:grant-type:jwt-bearer', grantJwtBearer],
  ['refresh_token', grantRefreshToken],
  ['urn:ietf:params:oauth:grant-type:token-exchange', grantTokenExchange],
]);

export function tokenRoute(deps: OAuthDeps): Route {
  return { method: 'POST', pattern: TOKEN_PATH, handler: withOAuthErrors((req) => handleToken(req, deps), deps.logger) };
}

/** Without async frames: the token endpoint is the hot path (one `then` for the grant, one for the reply). */
function handleToken(req: HttpRequest, deps: OAuthDeps): Promise<HttpReply> {
  const request = openOAuthRequest(deps, req);
  return request instanceof Promise ? request.then((opened) => grantReply(deps, opened)) : grantReply(deps, request);
}

function grantReply(deps: OAuthDeps, request: OAuthRequest): Promise<HttpReply> {
  const grantType = requireParam(request.params, 'grant_type');
  const grant = GRANTS.get(grantType);
  if (grant === undefined) throw new OAuthError('unsupported_grant_type', 'the grant type is not supported', { redirectable: false });
  return grant(deps, request).then((response) => tokenReply(request.http, grantType, response));
}

function tokenReply(req: HttpRequest, grantType: string, response: TokenResponse): HttpReply {
  const reply = noStoreJsonText(tokenResponseJson(response));
  if (req.notes !== undefined) req.notes.grant = grantType; // counted by grant (metrics); a known key of GRANTS
  return reply;
}
