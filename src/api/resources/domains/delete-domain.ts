/** DeleteDomain: DELETE /resources/v3alpha/domains/{id}; the primary domain cannot be removed. */
import { z } from 'zod';
import { removeOrgDomain } from '../../../../actors/index.js';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { domainName, requireDomainWith } from './shared.js';

const input = z.object({ id: domainName });

export const deleteDomainRpc = defineRpc({
  method: PlatformDomains.method.deleteDomain,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { orgId } = await requireDomainWith(call, id, 'org.write');
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      removeOrgDomain,
      { orgId, domain: id },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
