/** GetDomain: GET /resources/v3alpha/domains/{id} (the id is the domain name). */
import { z } from 'zod';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith } from '../../shared/validate.js';
import { domainName, requireDomainWith, toGetDomain } from './shared.js';

const input = z.object({ id: domainName });

export const getDomainRpc = defineRpc({
  method: PlatformDomains.method.getDomain,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { domain: toGetDomain(await requireDomainWith(call, id, 'org.read')) };
  },
});
