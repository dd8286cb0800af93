/**
 * A user's project roles for the OIDC role claims (reference facts §5.1): per project,
 * `{"<roleKey>": {"<orgId>": "<org primary domain>"}}`, where the org is the grant's (the
 * user's organization). One read of the user's grants row, plus the projects, project grants
 * and organizations it names (each read once). Only active grants count; keys are cut to the
 * roles the project still has and, for a user outside the project's organization, to the
 * roles of an active project grant to the user's organization. Projects of removed
 * organizations are skipped; a project's own active/inactive state is left to the caller.
 */
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import { orgKind } from './org.js';
import { projectKind } from './project.js';
import { projectGrantKind, type ProjectGrant } from './project-grant.js';
import { userKind } from './user.js';
import { userGrantsKind, type UserGrant } from './user-grants.js';

/** roleKey → orgId → org primary domain. */
export type RoleClaim = Map<string, Map<string, string>>;

/** The slice of the actor system these reads need (ActorSystem satisfies it). */
export interface RecordReader {
  readRecord<S>(instanceId: string, kind: AggregateKind<S>, id: string): Promise<AggregateRecord<S> | undefined>;
}

/** projectId → the user's role claim for that project (projects without roles are absent). */
export async function userRolesForProjects(
  actors: RecordReader,
  instanceId: string,
  userId: string,
  projectIds?: readonly string[],
): Promise<Map<string, RoleClaim>> {
  const result = new Map<string, RoleClaim>();
  const row = await actors.readRecord(instanceId, userGrantsKind, userId);
  if (row === undefined) return result;
  const { orgId } = row.state;
  const user = await actors.readRecord(instanceId, userKind, userId);
  const org = await actors.readRecord(instanceId, orgKind, orgId);
  if (user === undefined || user.state.orgId !== orgId || org === undefined) return result;
  const wanted = projectIds === undefined ? undefined : new Set(projectIds);
  const liveOrgs = new Map<string, boolean>([[orgId, true]]);
  const orgLive = async (id: string) => {
    let live = liveOrgs.get(id);
    if (live === undefined) liveOrgs.set(id, (live = (await actors.readRecord(instanceId, orgKind, id)) !== undefined));
    return live;
  };
  for (const grant of row.state.grants) {
    if (grant.state !== 'active' || (wanted !== undefined && !wanted.has(grant.projectId))) continue;
    const keys = await effectiveUserGrantRoles(actors, instanceId, orgId, grant, orgLive);
    if (keys.length === 0) continue;
    const claim: RoleClaim = new Map();
    for (const key of keys) claim.set(key, new Map([[orgId, org.state.primaryDomain]]));
    result.set(grant.projectId, claim);
  }
  return result;
}

/**
 * The role keys a user grant currently confers: its keys cut to the project's roles and, with
 * a project grant, to the grant's roles (an inactive or removed project grant confers none).
 */
export async function effectiveUserGrantRoles(
  actors: RecordReader,
  instanceId: string,
  userOrgId: string,
  grant: UserGrant,
  orgLive: (orgId: string) => Promise<boolean>,
): Promise<string[]> {
  const project = await actors.readRecord(instanceId, projectKind, grant.projectId);
  if (project === undefined || !(await orgLive(project.state.orgId))) return [];
  let projectGrant: ProjectGrant | undefined;
  if (grant.projectGrantId !== '') {
    projectGrant = (await actors.readRecord(instanceId, projectGrantKind, grant.projectGrantId))?.state;
    if (projectGrant === undefined || projectGrant.state !== 'active' || projectGrant.projectId !== grant.projectId || projectGrant.grantedOrgId !== userOrgId) return [];
  }
  return userGrantRoleKeys(grant, project.state.roles.map((r) => r.key), projectGrant);
}

/** Pure: the grant's keys that the project (and the project grant, if any) still has. */
export function userGrantRoleKeys(grant: UserGrant, projectRoles: readonly string[], projectGrant?: ProjectGrant): string[] {
  const allowed = new Set(projectRoles);
  const granted = projectGrant === undefined ? undefined : new Set(projectGrant.roleKeys);
  return grant.roleKeys.filter((k) => allowed.has(k) && (granted === undefined || granted.has(k)));
}
