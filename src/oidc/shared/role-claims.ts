/**
 * Role claims (reference facts §5.1 "Role claims"): `{"<roleKey>": {"<orgId>": "<primary
 * domain>"}}` under `urn:platform:iam:org:project:roles` (the client's project),
 * `urn:platform:iam:org:project:{projectId}:roles` (per project) and, with the
 * `org:projects:roles` scope, the merged `urn:platform:iam:org:projects:roles`.
 * `org:project:role:{role}` scopes restrict the keys; `org:roles:id:{orgId}` the granting orgs.
 */
import { type ActorSystem, type RoleClaim, userRolesForProjects } from '../../../actors/index.js';
import type { ClientApp } from '../../query/app-clients.js';
import type { Claims } from './claims.js';
import { SCOPE_PREFIX } from './scopes.js';

/** `…:org:project:role:{role}`: requests one role (and restricts role claims to the requested ones). */
export const ROLE_SCOPE = `${SCOPE_PREFIX}org:project:role:`;
const ROLES_ORG = `${SCOPE_PREFIX}org:roles:id:`;
const PROJECTS_ROLES = `${SCOPE_PREFIX}org:projects:roles`;

export interface RoleClaimRequest {
  readonly userId: string;
  readonly scopes: readonly string[];
  /** Projects whose roles to claim (the token's project audience, or the caller's project). */
  readonly projectIds: readonly string[];
  /** The client's own project (`…:org:project:roles`), when the client is an app. */
  readonly clientProjectId?: string;
  /** The client project asserts roles even without role scopes (project role assertion). */
  readonly assertClientProjectRoles?: boolean;
}

/** True when the scopes ask for role claims. */
export function asksForRoles(scopes: readonly string[]): boolean {
  return scopes.some((s) => s.startsWith(ROLE_SCOPE) || s === PROJECTS_ROLES);
}

export async function roleClaims(actors: ActorSystem, instanceId: string, request: RoleClaimRequest): Promise<Claims> {
  const wanted = asksForRoles(request.scopes);
  const clientProject = request.clientProjectId;
  const assertClient = clientProject !== undefined && (wanted || request.assertClientProjectRoles === true);
  if (!wanted && !assertClient) return {};
  const projects = new Set(wanted ? request.projectIds : []);
  if (clientProject !== undefined && assertClient) projects.add(clientProject);
  const byProject = await userRolesForProjects(actors, instanceId, request.userId, [...projects]);
  const filter = claimFilter(request.scopes);
  const claims: Claims = {};
  const merged: Record<string, Record<string, string>> = {};
  for (const [projectId, claim] of byProject) {
    const shaped = toWire(claim, filter);
    if (Object.keys(shaped).length === 0) continue;
    if (wanted && request.projectIds.includes(projectId)) {
      claims[`${SCOPE_PREFIX}org:project:${projectId}:roles`] = shaped;
      for (const [key, orgs] of Object.entries(shaped)) merged[key] = { ...merged[key], ...orgs };
    }
    if (projectId === clientProject) {
      claims[`${SCOPE_PREFIX}org:project:roles`] = shaped;
      claims[`${SCOPE_PREFIX}org:project:${projectId}:roles`] = shaped;
    }
  }
  if (request.scopes.includes(PROJECTS_ROLES) && Object.keys(merged).length > 0) claims[PROJECTS_ROLES] = merged;
  return claims;
}

export interface AccessTokenRoleRequest {
  readonly app: ClientApp;
  readonly userId: string;
  readonly scopes: readonly string[];
  readonly aud: readonly string[];
  readonly accessTokenFormat: 'opaque' | 'jwt';
}

/**
 * The role claims of a JWT access token (reference facts §5.1): those userinfo would return for
 * the token (its project audience, the app's project, project role assertion), only when the
 * app sets accessTokenRoleAssertion; none (undefined) for opaque tokens or without the option.
 */
export async function accessTokenRoleClaims(actors: ActorSystem, instanceId: string, request: AccessTokenRoleRequest): Promise<Claims | undefined> {
  const config = request.app.app.state.config;
  if (request.accessTokenFormat !== 'jwt' || config.type !== 'oidc' || !config.oidc.accessTokenRoleAssertion) return undefined;
  return assertedRoleClaims(actors, instanceId, request);
}

/** The role claims of an ID token: only when the app asserts roles in ID tokens (idTokenRoleAssertion). */
export async function idTokenRoleClaims(actors: ActorSystem, instanceId: string, request: Omit<AccessTokenRoleRequest, 'accessTokenFormat'>): Promise<Claims | undefined> {
  const config = request.app.app.state.config;
  if (config.type !== 'oidc' || !config.oidc.idTokenRoleAssertion) return undefined;
  return assertedRoleClaims(actors, instanceId, request);
}

async function assertedRoleClaims(actors: ActorSystem, instanceId: string, request: Omit<AccessTokenRoleRequest, 'accessTokenFormat'>): Promise<Claims | undefined> {
  const project = request.app.project;
  const claims = await roleClaims(actors, instanceId, {
    userId: request.userId,
    scopes: request.scopes,
    projectIds: request.aud,
    clientProjectId: project.id,
    assertClientProjectRoles: project.state.projectRoleAssertion,
  });
  return Object.keys(claims).length === 0 ? undefined : claims;
}

interface ClaimFilter {
  readonly roles: ReadonlySet<string> | undefined;
  readonly orgs: ReadonlySet<string> | undefined;
}

function claimFilter(scopes: readonly string[]): ClaimFilter {
  const roles = scopes.filter((s) => s.startsWith(ROLE_SCOPE)).map((s) => s.slice(ROLE_SCOPE.length));
  const orgs = scopes.filter((s) => s.startsWith(ROLES_ORG)).map((s) => s.slice(ROLES_ORG.length));
  return { roles: roles.length > 0 ? new Set(roles) : undefined, orgs: orgs.length > 0 ? new Set(orgs) : undefined };
}

function toWire(claim: RoleClaim, filter: ClaimFilter): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [key, orgs] of claim) {
    if (filter.roles !== undefined && !filter.roles.has(key)) continue;
    const kept = [...orgs].filter(([orgId]) => filter.orgs === undefined || filter.orgs.has(orgId));
    if (kept.length > 0) out[key] = Object.fromEntries(kept);
  }
  return out;
}
