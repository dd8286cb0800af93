/** GetOrganization: GET /resources/v3alpha/organizations/{id}. */
import { z } from 'zod';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { defaultOrgId, readOrg, toGetOrganization } from './shared.js';

const input = z.object({ id: resourceId });

export const getOrganizationRpc = defineRpc({
  method: PlatformOrganizations.method.getOrganization,
  permission: 'org.read',
  orgOf: (request) => request.id,
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const record = await readOrg(call, id);
    return { organization: toGetOrganization(record, await defaultOrgId(call)) };
  },
});
