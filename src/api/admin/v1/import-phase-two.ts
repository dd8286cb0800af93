/**
 * Phases 2 and 3 of an import (reference facts §6.2), after every organization's own objects
 * exist: project grants (original ids) and user grants (phase 2), then org and project
 * members (phase 3), which may name users of other imported organizations.
 */
import {
  addMembership,
  addProjectGrant,
  addUserGrant,
  membershipId,
  membershipKind,
  notFound,
  projectGrantKind,
  projectKind,
  userGrantsKind,
  type CommandHandler,
} from '../../../../actors/index.js';
import type { DataOrg } from './export-format.js';
import type { ImportRun, OrgSuccess } from './import-run.js';

export async function importGrants(run: ImportRun, data: DataOrg, success: OrgSuccess): Promise<void> {
  const { actors, instanceId } = run.deps;
  const orgId = data.orgId;
  const ask = <C, R>(handler: CommandHandler<C, R>, command: C) => actors.ask({ kind: 'org', instanceId, orgId }, handler, command, { creator: run.deps.creator });

  for (const g of data.projectGrants ?? []) {
    const { projectId, grantedOrgId, roleKeys } = g.projectGrant;
    const has = async () => (await actors.readRecord(instanceId, projectGrantKind, g.grantId))?.meta.owner.id === orgId;
    const outcome = await run.item('project_grant', g.grantId, has, async () => {
      await ask(addProjectGrant, { grantId: g.grantId, projectId, orgId, grantedOrgId, roleKeys });
    });
    if (outcome === 'created') success.projectGrants.push({ grantId: g.grantId, projectId, orgId: grantedOrgId });
  }

  for (const g of data.userGrants ?? []) {
    const grants = async () => (await actors.readRecord(instanceId, userGrantsKind, g.userId))?.state.grants ?? [];
    const has = async () => (await grants()).some((x) => x.id === g.grantId || x.projectId === g.projectId);
    const outcome = await run.item('user_grant', `${g.userId}_${g.projectId}`, has, async () => {
      const project = await actors.readRecord(instanceId, projectKind, g.projectId);
      if (project === undefined) throw notFound('project.not_found', 'project not found');
      await ask(addUserGrant, {
        grantId: g.grantId ?? run.newId(),
        userId: g.userId,
        orgId,
        projectId: g.projectId,
        projectOrgId: project.state.orgId,
        projectGrantId: g.projectGrantId,
        roleKeys: g.roleKeys,
      });
    });
    if (outcome === 'created') success.userGrants.push({ projectId: g.projectId, userId: g.userId });
  }
}

export async function importMembers(run: ImportRun, data: DataOrg, success: OrgSuccess): Promise<void> {
  const { actors, instanceId } = run.deps;
  const orgId = data.orgId;
  const ask = <C, R>(handler: CommandHandler<C, R>, command: C) => actors.ask({ kind: 'instance', instanceId }, handler, command, { creator: run.deps.creator });
  const exists = async (id: string) => (await actors.readRecord(instanceId, membershipKind, id)) !== undefined;

  for (const m of data.orgMembers ?? []) {
    const outcome = await run.item('org_member', `${orgId}_${m.userId}`, () => exists(membershipId('org', orgId, m.userId)), async () => {
      await ask(addMembership, { contextType: 'org', contextId: orgId, userId: m.userId, roles: m.roles });
    });
    if (outcome === 'created') success.orgMembers.push(m.userId);
  }

  for (const m of data.projectMembers ?? []) {
    const id = `${orgId}_${m.projectId}_${m.userId}`;
    const outcome = await run.item('project_member', id, () => exists(membershipId('project', m.projectId, m.userId)), async () => {
      await ask(addMembership, { contextType: 'project', contextId: m.projectId, userId: m.userId, roles: m.roles, ownerOrgId: orgId });
    });
    if (outcome === 'created') success.projectMembers.push({ projectId: m.projectId, userId: m.userId });
  }
}
