/** GetInstanceDefaultOrganization: GET /resources/v3alpha/organizations/_instance_default. */
import { notFound } from '../../../../actors/index.js';
import { PlatformOrganizations } from '../../../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { defaultOrgId, readOrg, toGetOrganization } from './shared.js';

export const getInstanceDefaultOrganizationRpc = defineRpc({
  method: PlatformOrganizations.method.getInstanceDefaultOrganization,
  permission: 'org.read',
  async handle(_request, call) {
    const id = await defaultOrgId(call);
    if (id === '') throw notFound('org.no_default', 'the instance has no default organization');
    return { organization: toGetOrganization(await readOrg(call, id), id) };
  },
});
