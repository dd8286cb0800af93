/**
 * CreateMembership: POST /resources/v3alpha/memberships → 201 with the derived id. The context
 * comes from the membership (`instance: true`, `orgId` or `projectId`); the permission is the
 * context's `*.member.write`. System roles belong to system users (TESSERA_SYSTEM_USERS), so
 * `system` is refused.
 */
import { z } from 'zod';
import { addMembership, invalidArgument, type MembershipContext, projectKind, userKind } from '../../../../actors/index.js';
import { PlatformMemberships, type Membership } from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { requireOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireManage, type MembershipPlace } from './shared.js';
import { roleList } from './roles-input.js';

const input = z.object({ membership: z.object({ userId: resourceId, roles: roleList.min(1, 'at least one role') }, 'required') });

export const createMembershipRpc = defineRpc({
  method: PlatformMemberships.method.createMembership,
  permission: 'authenticated',
  created: true,
  async handle(request, call) {
    const { membership } = parseWith(input, request);
    const place = await placeOfRequest(call, request.membership);
    await requireManage(call, place, 'write');
    await requireOwned(call, userKind, membership.userId, 'user.not_found', 'user');
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      addMembership,
      {
        contextType: place.contextType,
        contextId: place.contextId,
        userId: membership.userId,
        roles: membership.roles,
        ...(place.contextType === 'project' ? { ownerOrgId: place.orgId } : {}),
      },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

/** The context the membership names (400 naming the field when there is none or it is invalid). */
async function placeOfRequest(call: CallContext, membership: Membership | undefined): Promise<MembershipPlace> {
  const context = membership?.context;
  const invalid = (field: string, description: string) =>
    invalidArgument('request.invalid', `invalid request: ${field}: ${description}`, { violations: [{ field: `membership.${field}`, description }] });
  const place = (contextType: MembershipContext, contextId: string, orgId: string): MembershipPlace => ({ contextType, contextId, orgId });
  switch (context?.case) {
    case 'instance':
      if (!context.value) throw invalid('instance', 'must be true when set');
      return place('instance', call.instance.id, '');
    case 'orgId':
      if (context.value === '' || context.value.length > 200) throw invalid('orgId', '1..200 characters');
      return place('org', context.value, context.value);
    case 'projectId': {
      if (context.value === '' || context.value.length > 200) throw invalid('projectId', '1..200 characters');
      const project = await requireOwned(call, projectKind, context.value, 'project.not_found', 'project');
      return place('project', project.id, project.state.orgId);
    }
    case 'system':
      throw invalid('system', 'system roles are configured per system user, not granted by memberships');
    default:
      throw invalid('context', 'exactly one of instance, orgId, projectId is required');
  }
}
