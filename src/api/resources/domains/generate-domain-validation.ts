/**
 * GenerateDomainValidation: POST /resources/v3alpha/domains/{id}/_generate_validation. A new
 * random token replaces any earlier one; the response says where to publish it. The token is
 * shown only here.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { addOrgDomainVerification, dnsChallengeName } from '../../../../actors/index.js';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { httpChallengeUrl } from './domain-validator.js';
import { domainName, parseValidationType, requireDomainWith, validationTypeField, validationTypes } from './shared.js';

const input = z.object({ id: domainName, validationType: validationTypeField });

export const generateDomainValidationRpc = defineRpc({
  method: PlatformDomains.method.generateDomainValidation,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, validationType } = parseWith(input, request);
    const { orgId, entry } = await requireDomainWith(call, id, 'org.write');
    const token = randomBytes(24).toString('base64url');
    const challenge = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      addOrgDomainVerification,
      { orgId, domain: id, validationType: parseValidationType(validationType, entry.validationType), token },
      { creator: call.caller.userId },
    );
    return {
      details: toDetails(challenge.details),
      validationType: validationTypes[challenge.validationType],
      token,
      ...(challenge.validationType === 'dns' ? { dnsRecordName: dnsChallengeName(id) } : { httpUrl: httpChallengeUrl(id, token) }),
    };
  },
});
