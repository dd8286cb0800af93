/**
 * Phase 4 of an import (a Tessera addition): states. Users, projects and grants that were not
 * active in the source (the `state` extension of the document) are deactivated or locked on
 * the target — last, because roles, apps and grants can only be added to live objects. Only
 * ever towards inactive: an import never reactivates anything. Already in that state: skipped.
 */
import {
  changeProjectGrantState,
  changeUserGrantState,
  changeUserState,
  deactivateProject,
  invalidArgument,
  projectGrantKind,
  projectKind,
  userGrantsKind,
  userKind,
  type CommandHandler,
  type UserStateAction,
} from '../../../../actors/index.js';
import { INACTIVE_STATES, type DataOrg } from './export-format.js';
import type { ImportRun } from './import-run.js';

export async function importStates(run: ImportRun, data: DataOrg): Promise<void> {
  const { actors, instanceId } = run.deps;
  const orgId = data.orgId;
  const ask = <C, R>(handler: CommandHandler<C, R>, command: C) => actors.ask({ kind: 'org', instanceId, orgId }, handler, command, { creator: run.deps.creator });

  for (const u of [...(data.humanUsers ?? []), ...(data.machineUsers ?? [])]) {
    if (u.state === undefined || u.state === '') continue;
    const action: UserStateAction | undefined = u.state === INACTIVE_STATES.userInactive ? 'deactivate' : u.state === INACTIVE_STATES.userLocked ? 'lock' : undefined;
    const target = action === 'deactivate' ? 'inactive' : 'locked';
    await run.item('user_state', u.userId, async () => (await actors.readRecord(instanceId, userKind, u.userId))?.state.state === target, async () => {
      if (action === undefined) throw invalidArgument('import.value_invalid', 'state has an unknown value');
      await ask(changeUserState, { orgId, userId: u.userId, action });
    });
  }

  for (const g of data.projectGrants ?? []) {
    if (g.state === undefined || g.state === '') continue;
    await run.item('project_grant_state', g.grantId, async () => (await actors.readRecord(instanceId, projectGrantKind, g.grantId))?.state.state === 'inactive', async () => {
      requireState(g.state, INACTIVE_STATES.projectGrant);
      await ask(changeProjectGrantState, { grantId: g.grantId, orgId, action: 'deactivate' });
    });
  }

  for (const g of data.userGrants ?? []) {
    if (g.state === undefined || g.state === '') continue;
    const grant = async () => (await actors.readRecord(instanceId, userGrantsKind, g.userId))?.state.grants.find((x) => x.projectId === g.projectId);
    await run.item('user_grant_state', `${g.userId}_${g.projectId}`, async () => (await grant())?.state === 'inactive', async () => {
      requireState(g.state, INACTIVE_STATES.userGrant);
      const current = await grant();
      if (current === undefined) throw invalidArgument('import.user_grant_missing', 'the user grant was not imported');
      await ask(changeUserGrantState, { grantId: current.id, userId: g.userId, orgId, action: 'deactivate' });
    });
  }

  for (const p of data.projects ?? []) {
    if (p.state === undefined || p.state === '') continue;
    await run.item('project_state', p.projectId, async () => (await actors.readRecord(instanceId, projectKind, p.projectId))?.state.state === 'inactive', async () => {
      requireState(p.state, INACTIVE_STATES.project);
      await ask(deactivateProject, { projectId: p.projectId, orgId });
    });
  }
}

function requireState(value: string | undefined, expected: string): void {
  if (value !== expected) throw invalidArgument('import.value_invalid', 'state has an unknown value');
}
