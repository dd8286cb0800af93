/** CreateOrganization: POST /resources/v3alpha/organizations → 201 with details. */
import { z } from 'zod';
import { createOrg } from '../../../../actors/index.js';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';

const input = z.object({
  organization: z.object({ name: z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters') }, 'required'),
});

export const createOrganizationRpc = defineRpc({
  method: PlatformOrganizations.method.createOrganization,
  permission: 'org.create',
  created: true,
  async handle(request, call) {
    const { organization } = parseWith(input, request);
    const orgId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      createOrg,
      { orgId, name: organization.name, instanceDomain: call.instance.primaryDomain },
      { creator: call.caller.userId, minted: [orgId] },
    );
    return { details: toDetails(details) };
  },
});
