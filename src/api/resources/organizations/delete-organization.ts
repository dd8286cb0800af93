/** DeleteOrganization: DELETE /resources/v3alpha/organizations/{id}. */
import { z } from 'zod';
import { removeOrg } from '../../../../actors/index.js';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

export const deleteOrganizationRpc = defineRpc({
  method: PlatformOrganizations.method.deleteOrganization,
  permission: 'org.delete',
  orgOf: (request) => request.id,
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId: id },
      removeOrg,
      { orgId: id },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
