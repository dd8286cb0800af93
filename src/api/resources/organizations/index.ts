/** PlatformOrganizations: every RPC definition of the service. */
import { createOrganizationRpc } from './create-organization.js';
import { deleteOrganizationRpc } from './delete-organization.js';
import { getInstanceDefaultOrganizationRpc } from './get-instance-default.js';
import { getOrganizationRpc } from './get-organization.js';
import { patchOrganizationRpc } from './patch-organization.js';
import { searchOrganizationsRpc } from './search-organizations.js';
import { setOrganizationAsInstanceDefaultRpc } from './set-instance-default.js';

export const organizationRpcs = [
  createOrganizationRpc,
  getOrganizationRpc,
  patchOrganizationRpc,
  deleteOrganizationRpc,
  searchOrganizationsRpc,
  setOrganizationAsInstanceDefaultRpc,
  getInstanceDefaultOrganizationRpc,
] as const;
