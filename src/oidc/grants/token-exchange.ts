/**
 * Token exchange (RFC 8693; seed 001 token-type matrix; reference facts §5.3), behind the
 * instance feature `token_exchange`. Without an actor: the same subject, a new token (its
 * `act` copied). Impersonation (an actor token, or a `jwt` / `user_id` subject): feature
 * `impersonation` on and the actor holding permission `impersonation` in the subject's org or
 * on the instance (else 403 access_denied); the new tokens carry `act`, and the subject's
 * stream records `user.impersonated` before they are issued. Requested types:
 * access_token (opaque), jwt (JWT access token), id_token (token_type N_A). Role claims follow
 * the exchanging app's settings as in every other flow (accessTokenRoleAssertion for JWT access
 * tokens, idTokenRoleAssertion for ID tokens).
 */
import { OAuthError, orgKind, recordImpersonation, userKind } from '../../../actors/index.js';
import { callerCan } from '../../query/auth.js';
import { isFeatureEnabled, requireFeature } from '../../query/features.js';
import { authenticateClient, type AuthenticatedClient, parseClientCredentials } from '../shared/client-auth.js';
import { type ExchangedToken, TOKEN_TYPE, verifyActorToken, verifySubjectToken } from '../shared/exchange-tokens.js';
import { invalidRequest, requireParam } from '../shared/form.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import { accessTokenRoleClaims, idTokenRoleClaims } from '../shared/role-claims.js';
import { grantScopes, parseScopeParam } from '../shared/scopes.js';
import { type IssueRequest, issueTokens, signIdToken } from '../shared/token-issuer.js';
import type { ActorClaim } from '../shared/token-store.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

const REQUESTED = new Map<string, 'opaque' | 'jwt' | 'id_token'>([
  [TOKEN_TYPE.accessToken, 'opaque'],
  [TOKEN_TYPE.jwt, 'jwt'],
  [TOKEN_TYPE.idToken, 'id_token'],
]);

export async function grantTokenExchange(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  const instanceId = request.instance.id;
  await requireFeature(deps.actors, instanceId, 'token_exchange');
  const client = await authenticateExchangeClient(deps, request);
  const params = request.params;
  if (params.has('resource')) throw new OAuthError('invalid_target', 'resource is not supported', { redirectable: false });
  const requestedType = params.get('requested_token_type') ?? TOKEN_TYPE.accessToken;
  const output = REQUESTED.get(requestedType);
  if (output === undefined) throw invalidRequest('requested_token_type is not supported');
  const { subject, actor } = await verifyTokens(deps, request, client);
  const user = await deps.actors.readRecord(instanceId, userKind, subject.sub);
  if (user === undefined || user.state.state !== 'active') throw invalidRequest('the subject is not an active user');
  const act = actor === undefined ? subject.act : await authorizeImpersonation(deps, request, actor, user.state.orgId);
  if (actor !== undefined) {
    // The audit trail, written before any token leaves: no impersonation without its event.
    await deps.actors.ask({ kind: 'org', instanceId, orgId: user.state.orgId }, recordImpersonation, { orgId: user.state.orgId, userId: user.id, actorUserId: actor.sub, clientId: client.clientId }, { creator: actor.sub });
  }
  const org = await deps.actors.readRecord(instanceId, orgKind, user.state.orgId);
  const granted = grantScopes(exchangeScope(params.get('scope'), subject, actor), {
    orgId: user.state.orgId,
    orgPrimaryDomain: org?.state.primaryDomain ?? '',
    projectRoles: client.kind === 'app' ? client.app.project.state.roles.map((r) => r.key) : [],
  });
  const aud = exchangeAudience(params.get('audience'), subject, actor);
  const auth = actor ?? subject;
  const accessTokenFormat = output === 'jwt' ? 'jwt' : 'opaque';
  const wantsIdToken = granted.scopes.includes('openid') || output === 'id_token';
  const roleRequest = { userId: user.id, scopes: granted.scopes, aud };
  const roles = client.kind === 'app' && output === 'jwt' ? await accessTokenRoleClaims(deps.actors, instanceId, { app: client.app, accessTokenFormat, ...roleRequest }) : undefined;
  const idRoles = client.kind === 'app' && wantsIdToken ? await idTokenRoleClaims(deps.actors, instanceId, { app: client.app, ...roleRequest }) : undefined;
  const issue: IssueRequest = {
    instanceId,
    issuer: request.issuer,
    clientId: client.clientId,
    sub: user.id,
    aud: aud.includes(client.clientId) ? aud : [...aud, client.clientId],
    scope: granted.scopes,
    accessTokenFormat,
    now: request.now,
    authTime: auth.authTime ?? Math.floor(request.now / 1000),
    ...(auth.amr === undefined ? {} : { amr: auth.amr }),
    ...(act === undefined ? {} : { act }),
    ...(roles === undefined ? {} : { accessTokenClaims: roles }),
    ...(wantsIdToken ? { idToken: { subject: { user, org }, aud: [client.clientId, ...aud.filter((a) => a !== client.clientId)], withUserinfo: false, ...(idRoles === undefined ? {} : { roleClaims: idRoles }) } } : {}),
    ...(granted.scopes.includes('offline_access') ? { refresh: { absoluteExpiresAt: request.now + deps.lifetimes.refreshMs } } : {}),
  };
  if (output === 'id_token') {
    const idToken = await signIdToken(deps, issue, Math.floor(request.now / 1000));
    return { access_token: idToken, token_type: 'N_A', expires_in: Math.floor(deps.lifetimes.idMs / 1000), scope: granted.scopes.join(' '), issued_token_type: TOKEN_TYPE.idToken };
  }
  const issued = await issueTokens(deps, issue);
  return { ...toTokenResponse(issued), issued_token_type: requestedType };
}

async function authenticateExchangeClient(deps: OAuthDeps, request: OAuthRequest): Promise<AuthenticatedClient> {
  const creds = parseClientCredentials(request.params, request.http.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'post', 'none', 'private_key_jwt'], allowMachineUsers: true });
  const config = client.kind === 'app' ? client.app.app.state.config : undefined;
  if (config !== undefined && (config.type !== 'oidc' || !config.oidc.grantTypes.includes('token_exchange'))) {
    throw new OAuthError('unauthorized_client', 'the client may not use token exchange', { redirectable: false });
  }
  return client;
}

/** Subject and actor per the seed's matrix: jwt / user_id subjects only with an actor token. */
async function verifyTokens(deps: OAuthDeps, request: OAuthRequest, client: AuthenticatedClient): Promise<{ subject: ExchangedToken; actor: ExchangedToken | undefined }> {
  const params = request.params;
  const subjectType = requireParam(params, 'subject_token_type');
  const actorToken = params.get('actor_token');
  const actorType = params.get('actor_token_type');
  if (actorToken !== undefined && actorType === undefined) throw invalidRequest('actor_token_type is required with actor_token');
  if (actorToken === undefined && actorType !== undefined) throw invalidRequest('actor_token_type needs actor_token');
  if ((subjectType === TOKEN_TYPE.jwt || subjectType === TOKEN_TYPE.userId) && actorToken === undefined) throw invalidRequest('this subject_token_type needs an actor_token');
  const subject = await verifySubjectToken(deps, request, client, requireParam(params, 'subject_token'), subjectType);
  const actor = actorToken === undefined ? undefined : await verifyActorToken(deps, request, actorToken, actorType!); // checked above
  return { subject, actor };
}

async function authorizeImpersonation(deps: OAuthDeps, request: OAuthRequest, actor: ExchangedToken, subjectOrgId: string): Promise<ActorClaim> {
  const instanceId = request.instance.id;
  const denied = (message: string) => new OAuthError('access_denied', message, { redirectable: false });
  if (!(await isFeatureEnabled(deps.actors, instanceId, 'impersonation'))) throw denied('impersonation is not enabled for this instance');
  const actorUser = await deps.actors.readRecord(instanceId, userKind, actor.sub);
  if (actorUser === undefined || actorUser.state.state !== 'active') throw denied('the actor is not an active user');
  if (!(await callerCan(deps.actors, instanceId, { userId: actorUser.id, orgId: actorUser.state.orgId }, 'impersonation', subjectOrgId))) {
    throw denied('the actor may not impersonate this user');
  }
  return { iss: request.issuer, sub: actor.sub, ...(actor.act === undefined ? {} : { act: actor.act }) };
}

/** The requested scope; if empty the subject token's; if that is empty too the actor token's. */
function exchangeScope(param: string | undefined, subject: ExchangedToken, actor: ExchangedToken | undefined): readonly string[] {
  const requested = parseScopeParam(param);
  if (requested.length > 0) return requested;
  return subject.scope.length > 0 ? subject.scope : (actor?.scope ?? []);
}

/** No `audience`: the subject's, else the actor's; otherwise each value must be in their union. */
function exchangeAudience(param: string | undefined, subject: ExchangedToken, actor: ExchangedToken | undefined): string[] {
  const known = [...subject.aud, ...(actor?.aud ?? [])];
  if (param === undefined) return [...(subject.aud.length > 0 ? subject.aud : (actor?.aud ?? []))];
  const requested = param.split(' ').filter((a) => a !== '');
  if (requested.some((a) => !known.includes(a))) throw new OAuthError('invalid_target', 'the audience exceeds the tokens’ audiences', { redirectable: false });
  return requested;
}
