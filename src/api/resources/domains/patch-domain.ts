/** PatchDomain: PATCH /resources/v3alpha/domains/{id}; only the validation type is patchable. */
import { z } from 'zod';
import { patchOrgDomain } from '../../../../actors/index.js';
import { DomainValidationType, PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { domainName, parseValidationType, requireDomainWith, validationTypeField } from './shared.js';

const input = z.object({
  id: domainName,
  domain: z
    .object({
      validationType: validationTypeField
        .refine((v) => v !== DomainValidationType.UNSPECIFIED, 'must be DOMAIN_VALIDATION_TYPE_DNS or _HTTP')
        .optional(),
    })
    .optional(),
});

export const patchDomainRpc = defineRpc({
  method: PlatformDomains.method.patchDomain,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, domain } = parseWith(input, request);
    const { orgId, entry } = await requireDomainWith(call, id, 'org.write');
    const wanted = domain?.validationType;
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      patchOrgDomain,
      { orgId, domain: id, ...(wanted === undefined ? {} : { validationType: parseValidationType(wanted, entry.validationType) }) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
