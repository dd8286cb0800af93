/**
 * authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, OIDC Core §3.1.3): the code is
 * single use and bound to the client and redirect_uri; the S256 verifier must match the
 * challenge; a replayed code is an invalid_grant and revokes the grant its first use issued
 * (RFC 6749 §4.1.2). The ID token carries nonce, amr, auth_time, sid and at_hash; userinfo
 * claims only when the app sets idTokenUserinfoAssertion (an access token is always issued).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError, orgKind, userKind, type Application, type OidcConfig } from '../../../actors/index.js';
import type { ClientApp } from '../../api/shared/app-clients.js';
import { redeemAuthorizationCode, recordCodeGrant, type AuthorizationCodeGrant } from '../shared/authorization-codes.js';
import { authenticateClient, parseClientCredentials } from '../shared/client-auth.js';
import { userClaims, type ClaimSubject } from '../shared/claims.js';
import { requireParam } from '../shared/form.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import { grantScopes } from '../shared/scopes.js';
import { issueTokens, type IssuedTokens } from '../shared/token-issuer.js';
import { newGrantId } from '../shared/token-store.js';
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
  await recordCodeGrant(deps.actors.options.store.ttl, request.instance.id, code, issued.tokens.record.grantId, grant.expiresAt);
  return { ...toTokenResponse(issued.tokens), ...(issued.idToken === undefined ? {} : { id_token: issued.idToken }) };
}

async function redeemCode(deps: OAuthDeps, request: OAuthRequest, code: string): Promise<AuthorizationCodeGrant> {
  const instanceId = request.instance.id;
  const redeemed = await redeemAuthorizationCode(deps.actors.options.store.ttl, instanceId, code, request.now);
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
  const user = await deps.actors.readRecord(instanceId, userKind, grant.userId);
  if (user === undefined || user.state.state !== 'active') throw invalidGrant('the user of this code is not active');
  const org = await deps.actors.readRecord(instanceId, orgKind, user.state.orgId);
  const projectRoles = app.project.state.roles.map((r) => r.key);
  const granted = grantScopes(grant.scopes, { orgId: user.state.orgId, orgPrimaryDomain: org?.state.primaryDomain ?? '', projectRoles });
  const application: Application = app.app.state;
  const aud = [...new Set([application.clientId, application.projectId, ...granted.projectAudience])];
  const wantsRefresh = granted.scopes.includes('offline_access') && oidc.grantTypes.includes('refresh_token');
  const tokens = await issueTokens(deps, {
    instanceId,
    issuer: request.issuer,
    clientId: application.clientId,
    sub: user.id,
    aud,
    scope: granted.scopes,
    accessTokenFormat: oidc.accessTokenType === 'jwt' ? 'jwt' : 'opaque',
    now: request.now,
    grantId: newGrantId(),
    authTime: Math.floor(grant.authTime / 1000),
    amr: grant.amr,
    clockSkewMs: oidc.clockSkewMs,
    ...(wantsRefresh ? { refresh: { absoluteExpiresAt: request.now + deps.lifetimes.refreshMs } } : {}),
  });
  if (!granted.scopes.includes('openid')) return { tokens };
  const subject: ClaimSubject = { user, org };
  const idToken = await signCodeIdToken(deps, request, { grant, aud, subject, accessToken: tokens.accessToken, withUserinfo: oidc.idTokenUserinfoAssertion, scopes: granted.scopes });
  return { tokens, idToken };
}

interface IdTokenInput {
  readonly grant: AuthorizationCodeGrant;
  readonly aud: readonly string[];
  readonly subject: ClaimSubject;
  readonly accessToken: string;
  readonly withUserinfo: boolean;
  readonly scopes: readonly string[];
}

/** OIDC Core §2, §3.1.3.6 (at_hash: left half of SHA-256 of the access token). */
async function signCodeIdToken(deps: OAuthDeps, request: OAuthRequest, input: IdTokenInput): Promise<string> {
  const iat = Math.floor(request.now / 1000);
  const { grant } = input;
  const digest = createHash('sha256').update(input.accessToken).digest();
  const payload = {
    ...(input.withUserinfo ? userClaims(input.subject, input.scopes) : {}),
    iss: request.issuer,
    sub: input.subject.user.id,
    aud: input.aud,
    exp: iat + Math.floor(deps.lifetimes.idMs / 1000),
    iat,
    auth_time: Math.floor(grant.authTime / 1000),
    ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    amr: grant.amr,
    azp: grant.clientId,
    client_id: grant.clientId,
    at_hash: digest.subarray(0, digest.length / 2).toString('base64url'),
    sid: grant.sessionId,
  };
  return deps.signer.signJwt(request.instance.id, payload, { typ: 'JWT' });
}
