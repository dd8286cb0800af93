/**
 * CreateUserGrant: POST /resources/v3alpha/user_grants → 201; belongs to the user's
 * organization. A user outside the project's organization needs `projectGrantId`.
 */
import { z } from 'zod';
import { addUserGrant, notFound, projectKind, userKind } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { roleKeysInput } from './shared.js';

const input = z.object({
  userGrant: z.object(
    {
      userId: resourceId,
      projectId: resourceId,
      projectGrantId: z.string().max(200, 'must be at most 200 characters'),
      roleKeys: roleKeysInput,
    },
    'required',
  ),
});

export const createUserGrantRpc = defineRpc({
  method: PlatformGrants.method.createUserGrant,
  permission: 'authenticated', // user.grant.write, checked in the user's organization
  created: true,
  async handle(request, call) {
    const { userGrant } = parseWith(input, request);
    const user = await readOwned(call, userKind, userGrant.userId);
    if (user === undefined || (call.scope.type === 'org' && user.state.orgId !== call.scope.orgId)) throw notFound('user.not_found', 'user not found');
    const orgId = user.state.orgId;
    await call.require('user.grant.write', orgId);
    const project = await readOwned(call, projectKind, userGrant.projectId);
    if (project === undefined) throw notFound('project.not_found', 'project not found');
    const grantId = call.services.actors.ids.next();
    const command = { grantId, orgId, projectOrgId: project.state.orgId, ...userGrant };
    const details = await call.services.actors.ask(toOrgActor(call, orgId), addUserGrant, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
