/**
 * What a user grant of an app yields, shared by the authorization_code grant and the implicit
 * responses: the active user and org, the accepted scopes (unknown ones dropped, reference facts
 * §5.1) and the token audience (client id, project id, requested project audiences).
 */
import { OAuthError, orgKind, userKind, type ActorSystem, type AggregateRecord, type Org, type User } from '../../../actors/index.js';
import type { ClientApp } from '../../query/app-clients.js';
import { grantScopes } from './scopes.js';

export interface UserGrant {
  readonly user: AggregateRecord<User>;
  readonly org: AggregateRecord<Org> | undefined;
  readonly scopes: readonly string[];
  readonly aud: readonly string[];
}

export async function resolveUserGrant(actors: ActorSystem, instanceId: string, input: { userId: string; scopes: readonly string[]; app: ClientApp }): Promise<UserGrant> {
  const user = await actors.readRecord(instanceId, userKind, input.userId);
  if (user === undefined || user.state.state !== 'active') throw new OAuthError('invalid_grant', 'the user is not active', { redirectable: false });
  const org = await actors.readRecord(instanceId, orgKind, user.state.orgId);
  const projectRoles = input.app.project.state.roles.map((r) => r.key);
  const granted = grantScopes(input.scopes, { orgId: user.state.orgId, orgPrimaryDomain: org?.state.primaryDomain ?? '', projectRoles });
  const application = input.app.app.state;
  const aud = [...new Set([application.clientId, application.projectId, ...granted.projectAudience])];
  return { user, org, scopes: granted.scopes, aud };
}
