/** SetOrganizationAsInstanceDefault: POST /resources/v3alpha/organizations/{id}/_set_as_instance_default. */
import { z } from 'zod';
import { setDefaultOrg } from '../../../../actors/index.js';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

export const setOrganizationAsInstanceDefaultRpc = defineRpc({
  method: PlatformOrganizations.method.setOrganizationAsInstanceDefault,
  permission: 'iam.write',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      setDefaultOrg,
      { orgId: id },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
