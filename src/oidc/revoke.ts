/**
 * Revocation: `POST /oauth/v2/revoke` (RFC 7009, reference facts §5.2). Any of the four client
 * authentication methods (machine users with their secret too). A refresh token revokes its
 * whole grant (every access token issued from it); an access token only itself. Unknown tokens
 * and tokens of another client get 200 and change nothing (no oracle for token existence).
 */
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { resolveAccessToken } from './shared/access-token.js';
import { authenticateClient, parseClientCredentials } from './shared/client-auth.js';
import { requireParam } from './shared/form.js';
import { accessTokenContext, clientAuthContext, type OAuthDeps, type OAuthRequest, openOAuthRequest } from './shared/oauth-deps.js';
import { withOAuthErrors } from './shared/oauth-reply.js';
import { tokenKey } from './shared/token-store.js';

export const REVOKE_PATH = '/oauth/v2/revoke';
const REVOKED: HttpReply = Object.freeze({ status: 200, headers: { 'cache-control': 'no-store' } });

export function revokeRoute(deps: OAuthDeps): Route {
  return { method: 'POST', pattern: REVOKE_PATH, handler: withOAuthErrors((req) => handleRevoke(req, deps), deps.logger) };
}

async function handleRevoke(req: HttpRequest, deps: OAuthDeps): Promise<HttpReply> {
  const request = await openOAuthRequest(deps, req);
  const creds = parseClientCredentials(request.params, req.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'post', 'none', 'private_key_jwt'], allowMachineUsers: true });
  const token = requireParam(request.params, 'token');
  const revokedGrant = await revokeRefreshToken(deps, request, client.clientId, token);
  if (!revokedGrant) await revokeAccessToken(deps, request, client.clientId, token);
  return REVOKED;
}

/** True when `token` was a refresh token (of this client or not). */
async function revokeRefreshToken(deps: OAuthDeps, request: OAuthRequest, clientId: string, token: string): Promise<boolean> {
  const instanceId = request.instance.id;
  const record = await deps.tokens.findRefreshToken(instanceId, token);
  if (record === undefined) return false;
  if (record.clientId !== clientId) return true;
  const until = Math.max(record.absoluteExpiresAt, record.accessToken.exp * 1000) + 60_000;
  await Promise.all([deps.tokens.revokeGrant(instanceId, record.grantId, until), deps.tokens.deleteRefreshToken(instanceId, token)]);
  return true;
}

async function revokeAccessToken(deps: OAuthDeps, request: OAuthRequest, clientId: string, token: string): Promise<void> {
  const instanceId = request.instance.id;
  const record = await resolveAccessToken(accessTokenContext(deps, request), token, { checkRevocation: false });
  if (record === undefined || record.clientId !== clientId) return;
  if (record.format === 'opaque') await deps.tokens.deleteAccessTokenByKey(instanceId, tokenKey(token));
  else await deps.tokens.revokeJti(instanceId, record.jti, record.exp * 1000 + 60_000);
}
