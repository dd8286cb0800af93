/**
 * PatchSMTPProvider: PATCH /resources/v3alpha/smtp_providers/{id} (`iam.smtp.write`); absent
 * fields stay, a patch that changes nothing succeeds; `password: ""` removes the password.
 */
import { z } from 'zod';
import { patchSmtpProvider } from '../../../../actors/index.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { requireAllowedHost } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { patchInput, toDomainPatch } from './input.js';

const idInput = z.object({ id: resourceId });

export const patchSmtpProviderRpc = defineRpc({
  method: PlatformSMTPProviders.method.patchSMTPProvider,
  permission: 'iam.smtp.write',
  async handle(request, call) {
    const { id } = parseWith(idInput, request);
    const { smtpProvider } = parseWith(patchInput, request);
    if (smtpProvider?.host !== undefined) await requireAllowedHost(call, smtpProvider.host, 'smtpProvider.host');
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      patchSmtpProvider,
      { providerId: id, changes: toDomainPatch(smtpProvider ?? {}) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
