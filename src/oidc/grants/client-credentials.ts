/**
 * client_credentials (RFC 6749 §4.4) for machine users (reference facts §5.4): client_id = the
 * username, client_secret = the machine secret, by Basic or in the body. Applications have no
 * client_credentials grant type (unauthorized_client). Access token format per the machine
 * user's setting; no ID token, no refresh token. Hot path: cached client, one SHA-256, one
 * signature or one TTL write, no domain event.
 */
import { OAuthError, orgKind } from '../../../actors/index.js';
import { authenticateClient, parseClientCredentials } from '../shared/client-auth.js';
import { clientAuthContext, type OAuthDeps, type OAuthRequest } from '../shared/oauth-deps.js';
import { grantScopes, parseScopeParam, SCOPE_PREFIX } from '../shared/scopes.js';
import { issueTokens } from '../shared/token-issuer.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

const PRIMARY_DOMAIN_SCOPE = `${SCOPE_PREFIX}org:domain:primary:`;
const asksPrimaryDomain = (scope: string): boolean => scope.startsWith(PRIMARY_DOMAIN_SCOPE);

export async function grantClientCredentials(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  const creds = parseClientCredentials(request.params, request.http.headers.authorization);
  const client = await authenticateClient(creds, clientAuthContext(deps, request), { methods: ['basic', 'post'], allowMachineUsers: true });
  if (client.kind !== 'machine') throw new OAuthError('unauthorized_client', 'client_credentials is for service users', { redirectable: false });
  const user = client.user;
  const requested = parseScopeParam(request.params.get('scope'));
  const orgPrimaryDomain = requested.some(asksPrimaryDomain)
    ? ((await deps.actors.readRecord(request.instance.id, orgKind, user.state.orgId))?.state.primaryDomain ?? '')
    : '';
  const granted = grantScopes(requested, { orgId: user.state.orgId, orgPrimaryDomain, projectRoles: [] });
  const issued = await issueTokens(deps, {
    instanceId: request.instance.id,
    issuer: request.issuer,
    clientId: client.clientId,
    sub: user.id,
    aud: [...granted.projectAudience, client.clientId],
    scope: granted.scopes,
    accessTokenFormat: user.state.accessTokenType === 'jwt' ? 'jwt' : 'opaque',
    now: request.now,
  });
  return toTokenResponse(issued);
}
