/**
 * Introspection: `POST /oauth/v2/introspect` (RFC 7662, reference facts §5.5). Callers are API
 * or OIDC apps authenticating with client_secret_basic or private_key_jwt (else 401
 * invalid_client). `active` is true only for a valid, unexpired, unrevoked access token whose
 * audience holds the caller's client id or project id; any token problem is `{active:false}`.
 * Role claims are those of the caller's project only. A machine user's personal access token is
 * active for every caller: the caller's client id and project id join its audience and every role
 * of the caller's project counts as requested (reference facts §5.5).
 */
import { orgKind, PAT_SCOPE, userKind } from '../../actors/index.js';
import { tokenDigest } from '../crypto/token-digest.js';
import { looksLikeJwt } from '../crypto/jwt-bearer.js';
import type { ClientApp } from '../query/app-clients.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { resolveAccessToken } from './shared/access-token.js';
import { preferredUsername, userClaims } from './shared/claims.js';
import { authenticateClient, parseClientCredentials } from './shared/client-auth.js';
import { invalidClient, requireParam } from './shared/form.js';
import { accessTokenContext, clientAuthContext, type OAuthDeps, type OAuthRequest, openOAuthRequest } from './shared/oauth-deps.js';
import { noStoreJson, withOAuthErrors } from './shared/oauth-reply.js';
import { ROLE_SCOPE, roleClaims } from './shared/role-claims.js';
import type { AccessTokenRecord } from './shared/token-store.js';

export const INTROSPECT_PATH = '/oauth/v2/introspect';
const INACTIVE = Object.freeze({ active: false });

export function introspectRoute(deps: OAuthDeps): Route {
  return { method: 'POST', pattern: INTROSPECT_PATH, handler: withOAuthErrors((req) => handleIntrospect(req, deps), deps.logger) };
}

async function handleIntrospect(req: HttpRequest, deps: OAuthDeps): Promise<HttpReply> {
  const request = await openOAuthRequest(deps, req);
  const caller = await authenticateCaller(deps, request);
  const token = requireParam(request.params, 'token');
  const record = (await resolveAccessToken(accessTokenContext(deps, request), token)) ?? (await personalAccessToken(deps, request, token, caller));
  if (record === undefined || !record.aud.some((a) => a === caller.clientId || a === caller.app.project.id)) return noStoreJson(INACTIVE);
  const body = await activeResponse(deps, request, record, caller.app);
  return noStoreJson(body ?? INACTIVE);
}

/** The calling app: the token's audience must contain its client id or its project id. */
async function authenticateCaller(deps: OAuthDeps, request: OAuthRequest): Promise<{ clientId: string; app: ClientApp }> {
  const creds = parseClientCredentials(request.params, request.http.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'private_key_jwt'], allowMachineUsers: false });
  if (client.kind !== 'app') throw invalidClient();
  return { clientId: client.clientId, app: client.app };
}

/**
 * A PAT as an access-token record for this caller, or undefined. It has no issuing client
 * (`client_id` is the caller's) and no grant; the user must still be an active machine user
 * (checked with the claims below).
 */
async function personalAccessToken(deps: OAuthDeps, request: OAuthRequest, token: string, caller: { clientId: string; app: ClientApp }): Promise<AccessTokenRecord | undefined> {
  if (token.length > 512 || looksLikeJwt(token)) return undefined;
  const digest = tokenDigest(token);
  const userId = await deps.actors.findUnique(request.instance.id, PAT_SCOPE, digest);
  const user = userId === undefined ? undefined : await deps.actors.readRecord(request.instance.id, userKind, userId);
  const pat = user?.state.type === 'machine' ? user.state.tokens.find((t) => t.digest === digest) : undefined;
  if (user === undefined || pat === undefined || pat.expiresAt <= request.now) return undefined;
  const project = caller.app.project;
  return {
    format: 'opaque',
    jti: pat.id,
    grantId: pat.id,
    sub: user.id,
    clientId: caller.clientId,
    aud: [caller.clientId, project.id],
    scope: ['openid', 'profile', ...project.state.roles.map((role) => `${ROLE_SCOPE}${role.key}`)],
    iat: Math.floor(pat.createdAt / 1000),
    exp: Math.floor(pat.expiresAt / 1000),
  };
}

async function activeResponse(deps: OAuthDeps, request: OAuthRequest, record: AccessTokenRecord, caller: ClientApp): Promise<Record<string, unknown> | undefined> {
  const instanceId = request.instance.id;
  const user = await deps.actors.readRecord(instanceId, userKind, record.sub);
  if (user === undefined || user.state.state !== 'active') return undefined;
  const org = await deps.actors.readRecord(instanceId, orgKind, user.state.orgId);
  const projectId = caller.project.id;
  const roles = await roleClaims(deps.actors, instanceId, {
    userId: user.id,
    scopes: record.scope,
    projectIds: [projectId],
    clientProjectId: projectId,
    assertClientProjectRoles: caller.project.state.projectRoleAssertion,
  });
  // Assigned onto userClaims' fresh object in the reply's key order (the spread literal this
  // replaces was the endpoint's largest self time): a key already there keeps its place and
  // takes the later value, as in a spread.
  const body: Record<string, unknown> = Object.assign(userClaims({ user, org }, record.scope), roles);
  body.active = true;
  body.scope = record.scope.join(' ');
  body.client_id = record.clientId;
  body.token_type = 'Bearer';
  body.exp = record.exp;
  body.iat = record.iat;
  body.nbf = record.iat;
  if (record.authTime !== undefined) body.auth_time = record.authTime;
  body.sub = record.sub;
  body.aud = record.aud;
  if (record.amr !== undefined) body.amr = record.amr;
  body.iss = request.issuer;
  body.jti = record.jti;
  if (record.act !== undefined) body.act = record.act;
  body.username = preferredUsername({ user, org });
  return deps.claimHooks.apply('preuserinfo', { instanceId, clientId: record.clientId, subject: { user, org } }, body);
}
