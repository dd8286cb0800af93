/** PlatformProjects: every RPC definition of the service. */
import { activateProjectRpc } from './activate-project.js';
import { createProjectRoleRpc } from './create-project-role.js';
import { createProjectRpc } from './create-project.js';
import { deactivateProjectRpc } from './deactivate-project.js';
import { deleteProjectRoleRpc } from './delete-project-role.js';
import { deleteProjectRpc } from './delete-project.js';
import { getProjectRpc } from './get-project.js';
import { patchProjectRoleRpc } from './patch-project-role.js';
import { patchProjectRpc } from './patch-project.js';
import { searchProjectRolesRpc } from './search-project-roles.js';
import { searchProjectsRpc } from './search-projects.js';

export const projectRpcs = [
  createProjectRpc,
  getProjectRpc,
  patchProjectRpc,
  deleteProjectRpc,
  searchProjectsRpc,
  activateProjectRpc,
  deactivateProjectRpc,
  createProjectRoleRpc,
  patchProjectRoleRpc,
  deleteProjectRoleRpc,
  searchProjectRolesRpc,
] as const;
