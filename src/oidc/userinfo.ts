/**
 * UserInfo: `GET|POST /oidc/v1/userinfo` (OIDC Core §5.3): the user's claims for the scopes
 * granted to the access token, sent in the Authorization header (RFC 6750 §2.1) or, on POST, as
 * the form parameter `access_token` (§2.2); both at once → 400 invalid_request (§2). A missing
 * token → 401 with a bare Bearer challenge; an invalid, expired or revoked token (or an inactive
 * user) → 401 invalid_token.
 * Role claims: the token's project audience, and the issuing app's project.
 */
import { orgKind, userKind } from '../../actors/index.js';
import { bearerToken } from '../query/auth.js';
import { json } from '../http/reply.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest } from '../http/types.js';
import { resolveAccessToken } from './shared/access-token.js';
import { userClaims } from './shared/claims.js';
import { requireInstance } from './shared/endpoint.js';
import { invalidRequest, parseForm } from './shared/form.js';
import { issuerFor } from './shared/issuer.js';
import { accessTokenContext, type OAuthDeps } from './shared/oauth-deps.js';
import { noStoreJson, withOAuthErrors } from './shared/oauth-reply.js';
import { roleClaims } from './shared/role-claims.js';
import type { AccessTokenRecord } from './shared/token-store.js';

export const USERINFO_PATH = '/oidc/v1/userinfo';
const REALM = 'Bearer realm="tessera"';

export function userinfoRoutes(deps: OAuthDeps): Route[] {
  const handler = withOAuthErrors((req) => handleUserinfo(req, deps), deps.logger);
  return [
    { method: 'GET', pattern: USERINFO_PATH, handler },
    { method: 'POST', pattern: USERINFO_PATH, handler },
  ];
}

async function handleUserinfo(req: HttpRequest, deps: OAuthDeps): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  const token = presentedToken(req);
  if (token === undefined) return challenge(undefined);
  const issuer = issuerFor(deps.config, req) ?? '';
  const record = await resolveAccessToken(accessTokenContext(deps, { instance, issuer, now: deps.clock.now() }), token);
  const user = record === undefined ? undefined : await deps.actors.readRecord(instance.id, userKind, record.sub);
  if (record === undefined || user === undefined || user.state.state !== 'active') return challenge('invalid_token');
  const org = await deps.actors.readRecord(instance.id, orgKind, user.state.orgId);
  const roles = await rolesOf(deps, instance.id, record);
  const claims = { ...userClaims({ user, org }, record.scope), ...roles };
  return noStoreJson(await deps.claimHooks.apply('preuserinfo', { instanceId: instance.id, clientId: record.clientId, subject: { user, org } }, claims));
}

/** The header token, or on a form POST the body's `access_token` (never both). */
function presentedToken(req: HttpRequest): string | undefined {
  const header = bearerToken(req.headers.authorization);
  if (req.method !== 'POST' || req.body.length === 0) return header;
  const fromBody = parseForm(req).get('access_token');
  if (fromBody !== undefined && header !== undefined) throw invalidRequest('send the access token in the Authorization header or the body, not both');
  return header ?? fromBody;
}

/** Role claims for the token's project audience and the issuing app's project. */
async function rolesOf(deps: OAuthDeps, instanceId: string, record: AccessTokenRecord): Promise<Record<string, unknown>> {
  const client = await deps.clients.resolve(instanceId, record.clientId);
  const project = client.kind === 'app' ? client.app.project : undefined;
  return roleClaims(deps.actors, instanceId, {
    userId: record.sub,
    scopes: record.scope,
    projectIds: record.aud,
    ...(project === undefined ? {} : { clientProjectId: project.id, assertClientProjectRoles: project.state.projectRoleAssertion }),
  });
}

function challenge(error: 'invalid_token' | undefined): HttpReply {
  const header = error === undefined ? REALM : `${REALM}, error="${error}", error_description="the access token is invalid, expired or revoked"`;
  const body = error === undefined ? { error: 'invalid_request', error_description: 'an access token is required' } : { error, error_description: 'the access token is invalid, expired or revoked' };
  return json(401, body, { 'cache-control': 'no-store', 'www-authenticate': header });
}
