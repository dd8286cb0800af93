/**
 * client_credentials (RFC 6749 §4.4) for machine users (reference facts §5.4): client_id = the
 * username, client_secret = the machine secret, by Basic or in the body. Applications have no
 * client_credentials grant type (unauthorized_client). Access token format per the machine
 * user's setting; no ID token, no refresh token. Hot path: cached client, one SHA-256, one
 * signature or one TTL write, no domain event.
 */
import { OAuthError, orgKind } from '../../../actors/index.js';
import { type AuthenticatedClient, authenticateClient, type ClientAuthPolicy, parseClientCredentials } from '../shared/client-auth.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import { grantScopes, parseScopeParam, SCOPE_PREFIX } from '../shared/scopes.js';
import { issueAccessTokenNow } from '../shared/token-issuer.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

const PRIMARY_DOMAIN_SCOPE = `${SCOPE_PREFIX}org:domain:primary:`;
const asksPrimaryDomain = (scope: string): boolean => scope.startsWith(PRIMARY_DOMAIN_SCOPE);

type MachineClient = Extract<AuthenticatedClient, { kind: 'machine' }>;

/** Machine users by Basic or in the body (the policy of every client_credentials request, built once). */
const CLIENT_CREDENTIALS_AUTH: ClientAuthPolicy = { methods: ['basic', 'post'], allowMachineUsers: true };

/**
 * Written as `then` steps, not async functions: the hot path of the token endpoint, where an ES256
 * token needs no promise beyond the rate-limit count's (issueAccessTokenNow).
 */
export function grantClientCredentials(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  let authenticated: Promise<AuthenticatedClient>;
  try {
    const creds = parseClientCredentials(request.params, request.http.headers.authorization);
    authenticated = authenticateClient(creds, clientAuthContext(deps, request), CLIENT_CREDENTIALS_AUTH);
  } catch (error) {
    return Promise.reject(error);
  }
  return authenticated.then((client) => issueForClient(deps, request, client));
}

function issueForClient(deps: OAuthDeps, request: OAuthRequest, client: AuthenticatedClient): TokenResponse | Promise<TokenResponse> {
  if (client.kind !== 'machine') throw new OAuthError('unauthorized_client', 'client_credentials is for service users', { redirectable: false });
  const requested = parseScopeParam(request.params.get('scope'));
  if (!requested.some(asksPrimaryDomain)) return issueForMachine(deps, request, client, requested, '');
  return deps.actors.readRecord(request.instance.id, orgKind, client.user.state.orgId).then((org) => issueForMachine(deps, request, client, requested, org?.state.primaryDomain ?? ''));
}

function issueForMachine(deps: OAuthDeps, request: OAuthRequest, client: MachineClient, requested: readonly string[], orgPrimaryDomain: string): TokenResponse | Promise<TokenResponse> {
  const user = client.user;
  const granted = grantScopes(requested, { orgId: user.state.orgId, orgPrimaryDomain, projectRoles: [] });
  const issued = issueAccessTokenNow(deps, {
    instanceId: request.instance.id,
    issuer: request.issuer,
    clientId: client.clientId,
    sub: user.id,
    aud: granted.projectAudience.length === 0 ? [client.clientId] : [...granted.projectAudience, client.clientId],
    scope: granted.scopes,
    accessTokenFormat: user.state.accessTokenType === 'jwt' ? 'jwt' : 'opaque',
    now: request.now,
  });
  return issued instanceof Promise ? issued.then(toTokenResponse) : toTokenResponse(issued);
}
