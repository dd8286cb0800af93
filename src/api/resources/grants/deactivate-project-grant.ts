/** DeactivateProjectGrant: POST /resources/v3alpha/project_grants/{id}/_deactivate; already inactive → success, nothing recorded. */
import { z } from 'zod';
import { changeProjectGrantState } from '../../../../actors/index.js';
import { PlatformGrants } from '../../../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireProjectGrant } from './shared.js';

const input = z.object({ id: resourceId });

export const deactivateProjectGrantRpc = defineRpc({
  method: PlatformGrants.method.deactivateProjectGrant,
  permission: 'authenticated', // project.grant.write, checked in the project (or its organization)
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { record } = await requireProjectGrant(call, id, 'project.grant.write');
    const orgId = record.meta.owner.id;
    const command = { grantId: id, orgId, action: 'deactivate' } as const;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), changeProjectGrantState, command, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
