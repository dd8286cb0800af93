/**
 * Org-scoped login (reference facts §5.1): an authorization request whose scope holds
 * `urn:platform:iam:org:id:{id}` or `urn:platform:iam:org:domain:primary:{domain}` only lets
 * users of that organization log in (login-name lookup, reusable browser sessions). A scope
 * naming no existing organization lets nobody in.
 */
import { type ActorSystem, ORG_DOMAIN_SCOPE, orgKind, userKind } from '../../actors/index.js';
import { SCOPE_PREFIX } from '../oidc/shared/scopes.js';

const ORG_ID = `${SCOPE_PREFIX}org:id:`;
const ORG_DOMAIN = `${SCOPE_PREFIX}org:domain:primary:`;

/** No org scope: anyone; else only users of `orgId` (undefined: the scope names no org). */
export type LoginOrg = { readonly restricted: false } | { readonly restricted: true; readonly orgId: string | undefined };

export const UNRESTRICTED: LoginOrg = { restricted: false };

/** The organization the request's scopes restrict the login to. */
export async function loginOrgOf(actors: ActorSystem, instanceId: string, scopes: readonly string[]): Promise<LoginOrg> {
  const idScope = scopes.find((s) => s.startsWith(ORG_ID));
  const domainScope = scopes.find((s) => s.startsWith(ORG_DOMAIN));
  if (idScope === undefined && domainScope === undefined) return UNRESTRICTED;
  const byId = idScope === undefined ? undefined : await existingOrg(actors, instanceId, idScope.slice(ORG_ID.length));
  const byDomain = domainScope === undefined ? undefined : await orgOfPrimaryDomain(actors, instanceId, domainScope.slice(ORG_DOMAIN.length));
  if (idScope !== undefined && domainScope !== undefined) return { restricted: true, orgId: byId !== undefined && byId === byDomain ? byId : undefined };
  return { restricted: true, orgId: byId ?? byDomain };
}

/** True when a user of `userOrgId` may log in under the restriction. */
export function admitsOrg(loginOrg: LoginOrg, userOrgId: string): boolean {
  return !loginOrg.restricted || loginOrg.orgId === userOrgId;
}

async function existingOrg(actors: ActorSystem, instanceId: string, orgId: string): Promise<string | undefined> {
  if (orgId === '' || orgId.length > 200) return undefined;
  return (await actors.readRecord(instanceId, orgKind, orgId))?.id;
}

async function orgOfPrimaryDomain(actors: ActorSystem, instanceId: string, domain: string): Promise<string | undefined> {
  const wanted = domain.toLowerCase();
  if (wanted === '' || wanted.length > 253) return undefined;
  const orgId = await actors.findUnique(instanceId, ORG_DOMAIN_SCOPE, wanted);
  const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, orgKind, orgId);
  return org !== undefined && org.state.primaryDomain.toLowerCase() === wanted ? org.id : undefined;
}

/** The browser sessions whose users the restriction admits (all of them without an org scope). */
export async function sessionsAdmitted<T extends { readonly userId: string }>(actors: ActorSystem, instanceId: string, loginOrg: LoginOrg, sessions: readonly T[]): Promise<T[]> {
  if (!loginOrg.restricted) return [...sessions];
  const admitted: T[] = [];
  for (const session of sessions) {
    const user = await actors.readRecord(instanceId, userKind, session.userId);
    if (user !== undefined && admitsOrg(loginOrg, user.state.orgId)) admitted.push(session);
  }
  return admitted;
}
