/**
 * CreateDomain: POST /resources/v3alpha/domains → 201. The domain is added, unverified, to the
 * ctx organization (else the instance default); `org.write` is checked in that organization.
 */
import { z } from 'zod';
import { addOrgDomain } from '../../../../actors/index.js';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { targetOrgId } from '../../shared/owned.js';
import { parseWith } from '../../shared/validate.js';
import { domainName, parseValidationType, validationTypeField } from './shared.js';

const input = z.object({ domain: z.object({ domain: domainName, validationType: validationTypeField }, 'required') });

export const createDomainRpc = defineRpc({
  method: PlatformDomains.method.createDomain,
  permission: 'authenticated',
  created: true,
  async handle(request, call) {
    const { domain } = parseWith(input, request);
    const orgId = await targetOrgId(call);
    await call.require('org.write', orgId);
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      addOrgDomain,
      { orgId, domain: domain.domain, validationType: parseValidationType(domain.validationType, 'dns') },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
