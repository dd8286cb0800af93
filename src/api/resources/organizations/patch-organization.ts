/** PatchOrganization: PATCH /resources/v3alpha/organizations/{id}; absent fields stay unchanged. */
import { z } from 'zod';
import { patchOrg } from '../../../../actors/index.js';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({
  id: resourceId,
  organization: z
    .object({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional() })
    .optional(),
});

export const patchOrganizationRpc = defineRpc({
  method: PlatformOrganizations.method.patchOrganization,
  permission: 'org.write',
  orgOf: (request) => request.id,
  async handle(request, call) {
    const { id, organization } = parseWith(input, request);
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId: id },
      patchOrg,
      { orgId: id, ...(organization?.name === undefined ? {} : { name: organization.name }) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
