/** CreateSMTPProvider: POST /resources/v3alpha/smtp_providers → 201 (`iam.smtp.write`; instance-owned, inactive). */
import { createSmtpProvider } from '../../../../actors/index.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { requireAllowedHost } from '../../shared/providers.js';
import { parseWith } from '../../shared/validate.js';
import { createInput, toDomain } from './input.js';

export const createSmtpProviderRpc = defineRpc({
  method: PlatformSMTPProviders.method.createSMTPProvider,
  permission: 'iam.smtp.write',
  created: true,
  async handle(request, call) {
    const { smtpProvider } = parseWith(createInput, request);
    await requireAllowedHost(call, smtpProvider.host, 'smtpProvider.host');
    const providerId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      createSmtpProvider,
      { providerId, fields: toDomain(smtpProvider) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});
