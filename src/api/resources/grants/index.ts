/** PlatformGrants: every RPC definition of the service. */
import { activateProjectGrantRpc } from './activate-project-grant.js';
import { activateUserGrantRpc } from './activate-user-grant.js';
import { createProjectGrantRpc } from './create-project-grant.js';
import { createUserGrantRpc } from './create-user-grant.js';
import { deactivateProjectGrantRpc } from './deactivate-project-grant.js';
import { deactivateUserGrantRpc } from './deactivate-user-grant.js';
import { deleteProjectGrantRpc } from './delete-project-grant.js';
import { deleteUserGrantRpc } from './delete-user-grant.js';
import { getProjectGrantRpc } from './get-project-grant.js';
import { getUserGrantRpc } from './get-user-grant.js';
import { patchProjectGrantRpc } from './patch-project-grant.js';
import { patchUserGrantRpc } from './patch-user-grant.js';
import { searchProjectGrantsRpc } from './search-project-grants.js';
import { searchUserGrantsRpc } from './search-user-grants.js';

export const grantRpcs = [
  createProjectGrantRpc,
  getProjectGrantRpc,
  patchProjectGrantRpc,
  deleteProjectGrantRpc,
  searchProjectGrantsRpc,
  activateProjectGrantRpc,
  deactivateProjectGrantRpc,
  createUserGrantRpc,
  getUserGrantRpc,
  patchUserGrantRpc,
  deleteUserGrantRpc,
  searchUserGrantsRpc,
  activateUserGrantRpc,
  deactivateUserGrantRpc,
] as const;
