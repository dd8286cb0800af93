/**
 * SetDomainAsPrimary: POST /resources/v3alpha/domains/{id}/_set_primary. The organization's
 * primary domain (login-name suffix) becomes this verified domain.
 */
import { z } from 'zod';
import { setPrimaryOrgDomain } from '../../../../actors/index.js';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { domainName, requireDomainWith } from './shared.js';

const input = z.object({ id: domainName });

export const setDomainAsPrimaryRpc = defineRpc({
  method: PlatformDomains.method.setDomainAsPrimary,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { orgId } = await requireDomainWith(call, id, 'org.write');
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      setPrimaryOrgDomain,
      { orgId, domain: id },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
