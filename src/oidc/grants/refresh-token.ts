/**
 * refresh_token grant (RFC 6749 §6, reference facts §5.2): the token must belong to the calling
 * client — a correctly authenticated client that is not the owner (another app, a service user)
 * gets invalid_grant, an app that may not use this grant at all (API apps, OIDC apps without
 * refresh_token) unauthorized_client; invalid_client only when authentication itself failed.
 * Service users may refresh what they own (refresh tokens of their token exchanges).
 * scope must be a subset of the original (absent → the original; else invalid_scope);
 * rotation: the old refresh token is taken (single use, atomic), a "rotated" marker takes its
 * place and the grant's previous access token stops; the grant keeps its absolute end, the idle
 * period starts again. Reuse detection (RFC 9700 §4.14.2): a rotated token presented again by
 * its client revokes the whole grant — the current refresh token and every access token of
 * the family — and records `user.refresh.token.reused`; only refused refreshes pay for it.
 */
import { OAuthError, orgKind, recordRefreshTokenReuse, userKind } from '../../../actors/index.js';
import { authenticateClient, parseClientCredentials } from '../shared/client-auth.js';
import { requireParam } from '../shared/form.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import type { AuthenticatedClient } from '../shared/client-auth.js';
import { isScopeSubset, parseScopeParam } from '../shared/scopes.js';
import { accessTokenRoleClaims, idTokenRoleClaims } from '../shared/role-claims.js';
import { issueTokens } from '../shared/token-issuer.js';
import type { RefreshTokenRecord } from '../shared/token-store.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

function invalidGrant(message: string): OAuthError {
  return new OAuthError('invalid_grant', message, { redirectable: false });
}

export async function grantRefreshToken(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  const creds = parseClientCredentials(request.params, request.http.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'post', 'none', 'private_key_jwt'], allowMachineUsers: true });
  const config = client.kind === 'app' ? client.app.app.state.config : undefined;
  if (config !== undefined && (config.type !== 'oidc' || !config.oidc.grantTypes.includes('refresh_token'))) {
    throw new OAuthError('unauthorized_client', 'the client may not use the refresh_token grant', { redirectable: false });
  }
  const token = requireParam(request.params, 'refresh_token');
  const instanceId = request.instance.id;
  const found = await deps.tokens.findRefreshToken(instanceId, token);
  if (found === undefined) {
    await revokeFamilyOnReuse(deps, request, client, token);
    throw invalidGrant('the refresh token is invalid, expired or issued to another client');
  }
  if (found.clientId !== client.clientId || found.absoluteExpiresAt <= request.now) throw invalidGrant('the refresh token is invalid, expired or issued to another client');
  const requested = parseScopeParam(request.params.get('scope'));
  if (!isScopeSubset(requested, found.scope)) throw new OAuthError('invalid_scope', 'the scope exceeds the original grant', { redirectable: false });
  if (await deps.tokens.isGrantRevoked(instanceId, found.grantId)) throw invalidGrant('the grant was revoked');
  const taken = await deps.tokens.takeRefreshToken(instanceId, token);
  if (taken === undefined) throw invalidGrant('the refresh token was already used');
  await Promise.all([deps.tokens.markRotated(instanceId, token, taken), stopPreviousAccessToken(deps, instanceId, taken)]);
  const user = await deps.actors.readRecord(instanceId, userKind, taken.sub);
  if (user === undefined || user.state.state !== 'active') throw invalidGrant('the user of this grant is not active');
  const scope = requested.length === 0 ? taken.scope : requested;
  const org = scope.includes('openid') ? await deps.actors.readRecord(instanceId, orgKind, user.state.orgId) : undefined;
  const app = client.kind === 'app' ? client.app.app.state : undefined;
  const roles = client.kind === 'app' ? await accessTokenRoleClaims(deps.actors, instanceId, { app: client.app, userId: taken.sub, scopes: scope, aud: taken.aud, accessTokenFormat: taken.accessTokenFormat }) : undefined;
  const idRoles = client.kind === 'app' && scope.includes('openid') ? await idTokenRoleClaims(deps.actors, instanceId, { app: client.app, userId: taken.sub, scopes: scope, aud: taken.aud }) : undefined;
  const issued = await issueTokens(deps, {
    instanceId,
    issuer: request.issuer,
    clientId: client.clientId,
    sub: taken.sub,
    aud: taken.aud,
    scope,
    accessTokenFormat: taken.accessTokenFormat,
    now: request.now,
    grantId: taken.grantId,
    ...(taken.authTime === undefined ? {} : { authTime: taken.authTime }),
    ...(taken.amr === undefined ? {} : { amr: taken.amr }),
    ...(taken.sid === undefined ? {} : { sid: taken.sid }),
    ...(taken.act === undefined ? {} : { act: taken.act }),
    ...(roles === undefined ? {} : { accessTokenClaims: roles }),
    ...(app?.config.type === 'oidc' ? { clockSkewMs: app.config.oidc.clockSkewMs } : {}),
    ...(scope.includes('openid') ? { idToken: { subject: { user, org }, aud: idTokenAudience(client.clientId, taken), withUserinfo: app?.config.type === 'oidc' && app.config.oidc.idTokenUserinfoAssertion, ...(idRoles === undefined ? {} : { roleClaims: idRoles }) } } : {}),
    refresh: { absoluteExpiresAt: taken.absoluteExpiresAt, scope: taken.scope },
  });
  return toTokenResponse(issued);
}

function idTokenAudience(clientId: string, record: RefreshTokenRecord): string[] {
  return [clientId, ...record.aud.filter((a) => a !== clientId)];
}

async function stopPreviousAccessToken(deps: OAuthDeps, instanceId: string, record: RefreshTokenRecord): Promise<void> {
  const previous = record.accessToken;
  if (previous.format === 'opaque') await deps.tokens.deleteAccessTokenByKey(instanceId, previous.ref);
  else await deps.tokens.revokeJti(instanceId, previous.ref, previous.exp * 1000 + 60_000);
}

/**
 * An unknown refresh token that is a rotated one of this client: it was used before, so the
 * grant's tokens may be in the wrong hands. Revokes the grant until the last of its tokens
 * would have expired, and writes the security event once (not again for later replays).
 */
async function revokeFamilyOnReuse(deps: OAuthDeps, request: OAuthRequest, client: AuthenticatedClient, token: string): Promise<void> {
  const instanceId = request.instance.id;
  const rotated = await deps.tokens.findRotatedRefreshToken(instanceId, token);
  if (rotated === undefined || rotated.clientId !== client.clientId) return;
  if (await deps.tokens.isGrantRevoked(instanceId, rotated.grantId)) return;
  const until = Math.max(rotated.absoluteExpiresAt, request.now + deps.lifetimes.accessMs) + 60_000;
  await deps.tokens.revokeGrant(instanceId, rotated.grantId, until);
  const user = await deps.actors.readRecord(instanceId, userKind, rotated.sub);
  if (user === undefined) return;
  const orgId = user.state.orgId;
  await deps.actors.ask({ kind: 'org', instanceId, orgId }, recordRefreshTokenReuse, { orgId, userId: user.id, clientId: client.clientId, grantId: rotated.grantId }, { creator: '' });
}
