/**
 * authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, OIDC Core §3.1.3): the code is
 * single use and bound to the client and redirect_uri; the S256 verifier must match the
 * challenge; a replayed code is an invalid_grant and revokes the grant its first use issued
 * (RFC 6749 §4.1.2). The ID token carries nonce, amr, auth_time, sid and at_hash; userinfo
 * claims only when the app sets idTokenUserinfoAssertion (an access token is always issued).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError, type OidcConfig } from '../../../actors/index.js';
import type { ClientApp } from '../../query/app-clients.js';
import { redeemAuthorizationCode, recordCodeGrant, type AuthorizationCodeGrant } from '../shared/authorization-codes.js';
import { authenticateClient, parseClientCredentials } from '../shared/client-auth.js';
import { requireParam } from '../shared/form.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import { signIdToken } from '../shared/id-token.js';
import { accessTokenRoleClaims, idTokenRoleClaims } from '../shared/role-claims.js';
import { issueTokens, type IssuedTokens } from '../shared/token-issuer.js';
import { newGrantId } from '../shared/token-store.js';
import { resolveUserGrant } from '../shared/user-grant.js';
import { rememberSessionGrant } from '../shared/session-grants.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

function invalidGrant(message: string): OAuthError {
  return new OAuthError('invalid_grant', message, { redirectable: false });
}

export async function grantAuthorizationCode(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  const creds = parseClientCredentials(request.params, request.http.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'post', 'none', 'private_key_jwt'], allowMachineUsers: false });
  const oidc = client.kind === 'app' && client.app.app.state.config.type === 'oidc' ? client.app.app.state.config.oidc : undefined;
  if (client.kind !== 'app' || oidc === undefined || !oidc.grantTypes.includes('authorization_code')) {
    throw new OAuthError('unauthorized_client', 'the client may not use the authorization_code grant', { redirectable: false });
  }
  const code = requireParam(request.params, 'code');
  const grant = await redeemCode(deps, request, code);
  checkBinding(grant, client.clientId, request);
  const issued = await issueCodeTokens(deps, request, { grant, app: client.app, oidc });
  const ttl = deps.actors.ttl;
  const grantId = issued.tokens.record.grantId;
  await recordCodeGrant(ttl, request.instance.id, code, grantId, grant.expiresAt);
  await rememberSessionGrant(ttl, request.instance.id, grant.sessionId, grantId, request.now + Math.max(deps.lifetimes.accessMs, deps.lifetimes.refreshMs));
  return { ...toTokenResponse(issued.tokens), ...(issued.idToken === undefined ? {} : { id_token: issued.idToken }) };
}

async function redeemCode(deps: OAuthDeps, request: OAuthRequest, code: string): Promise<AuthorizationCodeGrant> {
  const instanceId = request.instance.id;
  const redeemed = await redeemAuthorizationCode(deps.actors.ttl, instanceId, code, request.now);
  if (redeemed.kind === 'valid') return redeemed.grant;
  if (redeemed.kind === 'replayed' && redeemed.grantId !== undefined) {
    await deps.tokens.revokeGrant(instanceId, redeemed.grantId, request.now + Math.max(deps.lifetimes.accessMs, deps.lifetimes.refreshMs));
  }
  throw invalidGrant('the code is invalid, expired or already used');
}

function checkBinding(grant: AuthorizationCodeGrant, clientId: string, request: OAuthRequest): void {
  if (grant.clientId !== clientId) throw invalidGrant('the code was issued to another client');
  if (request.params.get('redirect_uri') !== grant.redirectUri) throw invalidGrant('the redirect_uri differs from the authorization request');
  const verifier = request.params.get('code_verifier');
  if (grant.codeChallenge === undefined) {
    if (verifier !== undefined) throw invalidGrant('no code_challenge was sent for this code');
    return;
  }
  if (verifier === undefined || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw invalidGrant('the code_verifier is missing or malformed');
  const expected = Buffer.from(grant.codeChallenge);
  const actual = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw invalidGrant('the code_verifier does not match the code_challenge');
}

interface CodeClient {
  readonly grant: AuthorizationCodeGrant;
  readonly app: ClientApp;
  readonly oidc: OidcConfig;
}

async function issueCodeTokens(deps: OAuthDeps, request: OAuthRequest, { grant, app, oidc }: CodeClient): Promise<{ tokens: IssuedTokens; idToken?: string }> {
  const instanceId = request.instance.id;
  const { user, org, scopes, aud } = await resolveUserGrant(deps.actors, instanceId, { userId: grant.userId, scopes: grant.scopes, app });
  const wantsRefresh = scopes.includes('offline_access') && oidc.grantTypes.includes('refresh_token');
  const accessTokenFormat = oidc.accessTokenType === 'jwt' ? 'jwt' : 'opaque';
  const roles = await accessTokenRoleClaims(deps.actors, instanceId, { app, userId: user.id, scopes, aud, accessTokenFormat });
  const tokens = await issueTokens(deps, {
    instanceId,
    issuer: request.issuer,
    clientId: grant.clientId,
    sub: user.id,
    aud,
    scope: scopes,
    accessTokenFormat,
    now: request.now,
    grantId: newGrantId(),
    authTime: Math.floor(grant.authTime / 1000),
    amr: grant.amr,
    sid: grant.sessionId,
    clockSkewMs: oidc.clockSkewMs,
    ...(roles === undefined ? {} : { accessTokenClaims: roles }),
    ...(wantsRefresh ? { refresh: { absoluteExpiresAt: request.now + deps.lifetimes.refreshMs } } : {}),
  });
  if (!scopes.includes('openid')) return { tokens };
  const idRoles = await idTokenRoleClaims(deps.actors, instanceId, { app, userId: user.id, scopes, aud });
  const idToken = await signIdToken(deps.signer, {
    ...(idRoles === undefined ? {} : { roleClaims: idRoles }),
    instanceId,
    issuer: request.issuer,
    now: request.now,
    lifetimeMs: deps.lifetimes.idMs,
    subject: { user, org },
    aud,
    clientId: grant.clientId,
    authTime: grant.authTime,
    scopes,
    amr: grant.amr,
    sessionId: grant.sessionId,
    accessToken: tokens.accessToken,
    ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    ...(oidc.idTokenUserinfoAssertion ? { userinfoScopes: scopes } : {}),
    claimHooks: deps.claimHooks,
  });
  return { tokens, idToken };
}
