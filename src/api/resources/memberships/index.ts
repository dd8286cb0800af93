/** PlatformMemberships: every RPC definition of the service. */
import { createMembershipRpc } from './create-membership.js';
import { deleteMembershipRpc } from './delete-membership.js';
import { getMembershipRpc } from './get-membership.js';
import { listAvailableRolesRpc } from './list-available-roles.js';
import { patchMembershipRpc } from './patch-membership.js';
import { searchMembershipsRpc } from './search-memberships.js';

export const membershipRpcs = [
  createMembershipRpc,
  getMembershipRpc,
  patchMembershipRpc,
  deleteMembershipRpc,
  searchMembershipsRpc,
  listAvailableRolesRpc,
] as const;
