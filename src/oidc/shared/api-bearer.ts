/**
 * Lets the resource and settings APIs accept this server's own OAuth access tokens (JWT or
 * opaque) besides PATs, when the token's audience contains `platform` (the alias of the
 * platform's management project, reference facts §5.1) and its user is active. Revocation is
 * checked as in introspection.
 */
import { userKind } from '../../../actors/index.js';
import type { AccessTokenAuthenticator } from '../../query/auth.js';
import { resolveAccessToken } from './access-token.js';
import type { OAuthDeps } from './oauth-deps.js';
import { PLATFORM_AUDIENCE } from './scopes.js';

export function createApiAccessTokens(deps: OAuthDeps): AccessTokenAuthenticator {
  return {
    async callerOf(instanceId, token) {
      const ctx = { signer: deps.signer, tokens: deps.tokens, instanceId, issuer: undefined, now: deps.clock.now() };
      const record = await resolveAccessToken(ctx, token);
      if (record === undefined || !record.aud.includes(PLATFORM_AUDIENCE)) return undefined;
      const user = await deps.actors.readRecord(instanceId, userKind, record.sub);
      if (user === undefined || user.state.state !== 'active') return undefined;
      return { userId: user.id, orgId: user.state.orgId };
    },
  };
}
