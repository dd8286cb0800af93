/**
 * The implicit responses (OIDC Core §3.2.2.5, seed "Authorization responses"): `id_token`
 * carries the userinfo claims of the granted scopes; `id_token token` adds an access token
 * (type per app), token_type Bearer, expires_in and scope, and the ID token then carries
 * at_hash and no userinfo claims unless the app's idTokenUserinfoAssertion is set.
 */
import { OAuthError, type BrowserSessionSummary } from '../../../actors/index.js';
import { findAppByClientId } from '../../query/app-clients.js';
import type { AuthFlowDeps } from './auth-flow-deps.js';
import type { StoredAuthRequest } from './auth-requests.js';
import { signIdToken } from './id-token.js';
import { accessTokenRoleClaims, idTokenRoleClaims } from './role-claims.js';
import { issueTokens } from './token-issuer.js';
import { rememberSessionGrant } from './session-grants.js';
import { resolveUserGrant } from './user-grant.js';

export async function issueImplicitResponse(
  deps: AuthFlowDeps,
  instanceId: string,
  stored: StoredAuthRequest,
  session: BrowserSessionSummary,
): Promise<Record<string, string>> {
  const { request, issuer } = stored;
  const app = await findAppByClientId(deps.actors, instanceId, request.clientId);
  const config = app?.app.state.config;
  if (app === undefined || config?.type !== 'oidc') throw new OAuthError('unauthorized_client', 'the client is no longer available');
  const oidc = config.oidc;
  const { user, org, scopes, aud } = await resolveUserGrant(deps.actors, instanceId, { userId: session.userId, scopes: request.scopes, app });
  const now = deps.clock.now();
  const withToken = request.responseType === 'id_token token';
  const accessTokenFormat = oidc.accessTokenType === 'jwt' ? 'jwt' : 'opaque';
  const roles = withToken ? await accessTokenRoleClaims(deps.actors, instanceId, { app, userId: user.id, scopes, aud, accessTokenFormat }) : undefined;
  const tokens = withToken
    ? await issueTokens(deps, {
        instanceId,
        issuer,
        clientId: request.clientId,
        sub: user.id,
        aud,
        scope: scopes,
        accessTokenFormat,
        now,
        authTime: Math.floor(session.authTime / 1000),
        amr: session.amr,
        sid: session.sessionId,
        clockSkewMs: oidc.clockSkewMs,
        ...(roles === undefined ? {} : { accessTokenClaims: roles }),
      })
    : undefined;
  const idRoles = await idTokenRoleClaims(deps.actors, instanceId, { app, userId: user.id, scopes, aud });
  const idToken = await signIdToken(deps.signer, {
    ...(idRoles === undefined ? {} : { roleClaims: idRoles }),
    instanceId,
    issuer,
    now,
    lifetimeMs: deps.lifetimes.idMs,
    subject: { user, org },
    aud,
    clientId: request.clientId,
    authTime: session.authTime,
    scopes,
    amr: session.amr,
    sessionId: session.sessionId,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    ...(tokens === undefined ? {} : { accessToken: tokens.accessToken }),
    ...(!withToken || oidc.idTokenUserinfoAssertion ? { userinfoScopes: scopes } : {}),
    ...(deps.claimHooks === undefined ? {} : { claimHooks: deps.claimHooks }),
  });
  if (tokens === undefined) return { id_token: idToken };
  await rememberSessionGrant(deps.ttl, instanceId, session.sessionId, tokens.record.grantId, now + deps.lifetimes.accessMs);
  return { id_token: idToken, access_token: tokens.accessToken, token_type: 'Bearer', expires_in: String(tokens.expiresIn), scope: scopes.join(' ') };
}
