/** DeleteSMTPProvider: DELETE /resources/v3alpha/smtp_providers/{id} (`iam.smtp.delete`); an active provider is deactivated with it. */
import { z } from 'zod';
import { removeSmtpProvider } from '../../../../actors/index.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

export const deleteSmtpProviderRpc = defineRpc({
  method: PlatformSMTPProviders.method.deleteSMTPProvider,
  permission: 'iam.smtp.delete',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'instance', instanceId: call.instance.id }, removeSmtpProvider, { providerId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
