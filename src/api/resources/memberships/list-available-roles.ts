/**
 * ListAvailableRoles: GET /resources/v3alpha/memberships/_available_roles?contextType=... The
 * roles of a context (all contexts when unspecified) with the permissions each grants; the
 * table is public (docs/permissions.md), so any authenticated caller may read it.
 */
import { z } from 'zod';
import { ROLES, type RoleName } from '../../../../actors/index.js';
import { MembershipContextType, PlatformMemberships } from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith } from '../../shared/validate.js';
import { contextTypes, parseContextType } from './shared.js';

const input = z.object({ contextType: z.enum(MembershipContextType, 'must be a MEMBERSHIP_CONTEXT_TYPE_* value') });

export const listAvailableRolesRpc = defineRpc({
  method: PlatformMemberships.method.listAvailableRoles,
  permission: 'authenticated',
  async handle(request) {
    const { contextType } = parseWith(input, request);
    const wanted = parseContextType(contextType);
    const names = (Object.keys(ROLES) as RoleName[]).filter((name) => wanted === undefined || ROLES[name].context === wanted);
    return {
      roles: names.map((name) => ({
        name,
        contextType: contextTypes[ROLES[name].context],
        permissions: [...ROLES[name].permissions].sort(),
      })),
    };
  },
});
