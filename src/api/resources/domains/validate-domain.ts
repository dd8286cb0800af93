/**
 * ValidateDomain: POST /resources/v3alpha/domains/{id}/_validate. Checks the published
 * challenge (DNS TXT or HTTP file, domain-validator.ts) and marks the domain verified; a failed
 * check is 400 `domain.validation_failed`. An already verified domain succeeds without a check.
 */
import { z } from 'zod';
import { failedPrecondition, verifyOrgDomain } from '../../../../actors/index.js';
import type { Config } from '../../../config/schema.js';
import { PlatformDomains } from '../../../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import { checkDomainChallenge, createDomainValidator, type DomainValidator } from './domain-validator.js';
import { domainDetails, domainName, requireDomainWith } from './shared.js';

const input = z.object({ id: domainName });

const validators = new WeakMap<Config, DomainValidator>();

/** One validator per node configuration. */
function validatorFor(config: Config): DomainValidator {
  let validator = validators.get(config);
  if (validator === undefined) {
    validator = createDomainValidator({ dnsServers: config.domainValidationDnsServers, httpBase: config.domainValidationHttpBase });
    validators.set(config, validator);
  }
  return validator;
}

export const validateDomainRpc = defineRpc({
  method: PlatformDomains.method.validateDomain,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const found = await requireDomainWith(call, id, 'org.write');
    const { orgId, entry } = found;
    if (entry.isVerified) return { details: toDetails(domainDetails(found)) };
    if (entry.validationToken === '') throw failedPrecondition('domain.validation_missing', 'generate a validation first');
    const challenge = { domain: id, validationType: entry.validationType, token: entry.validationToken };
    const outcome = await checkDomainChallenge(validatorFor(call.services.config), challenge);
    if (!outcome.ok) throw failedPrecondition('domain.validation_failed', 'the challenge was not found where it must be published', { detail: outcome.reason });
    const details = await call.services.actors.ask(
      { kind: 'org', instanceId: call.instance.id, orgId },
      verifyOrgDomain,
      { orgId, domain: id, token: entry.validationToken },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
